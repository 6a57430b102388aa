import { useEffect, useId, useState } from "react";
import { api, type ModelChoice, type ProviderOption } from "./api.ts";
import { ErrorAlert } from "./error-alert.tsx";

/**
 * Provider and model for a new task: the configured ones first, then what the catalog knows.
 * A choice is checked with the server as it is made, so a missing key (and the variable to set)
 * shows before the task starts, not after.
 */
export function ModelPicker({ onChange }: { onChange(choice: ModelChoice | undefined): void }) {
  const [providers, setProviders] = useState<ProviderOption[]>([]);
  const [choice, setChoice] = useState<ModelChoice>();
  const [problem, setProblem] = useState<string>();
  const [noImages, setNoImages] = useState(false);
  const id = useId();

  useEffect(() => {
    let live = true;
    void api.models().then((found) => {
      if (!live || !found.ok) return;
      setProviders(found.data.providers);
      setChoice(found.data.default);
    });
    return () => void (live = false);
  }, []);
  useEffect(() => {
    onChange(choice);
    if (!choice) return;
    let live = true;
    void api.checkModel(choice).then((checked) => {
      if (!live) return;
      const verdict = checked.ok ? checked.data : { ok: false as const, error: checked.error };
      setProblem(verdict.ok ? undefined : verdict.error);
      setNoImages(verdict.ok && !verdict.supports_images);
    });
    return () => void (live = false);
  }, [choice?.provider, choice?.model]);

  if (!choice || providers.length === 0) return null;
  const models = providers.find((p) => p.id === choice.provider)?.models ?? [choice.model];
  return (
    <fieldset className="model-picker">
      <legend>Model</legend>
      <label htmlFor={`${id}-provider`} className="visually-hidden">
        Provider
      </label>
      <select id={`${id}-provider`} value={choice.provider} onChange={(e) => setChoice({ provider: e.target.value, model: providers.find((p) => p.id === e.target.value)?.models[0] ?? "" })}>
        {providers.map((p) => (
          <option key={p.id} value={p.id}>
            {p.id}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-model`} className="visually-hidden">
        Model
      </label>
      <select id={`${id}-model`} value={choice.model} onChange={(e) => setChoice({ provider: choice.provider, model: e.target.value })}>
        {models.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
      {noImages ? <span className="muted">takes no images</span> : null}
      <ErrorAlert message={problem} />
    </fieldset>
  );
}
