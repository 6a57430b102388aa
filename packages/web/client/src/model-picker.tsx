import { useCallback, useEffect, useId, useRef, useState } from "react";
import { api, type ModelChoice, type ProviderOption } from "./api.ts";
import { ErrorAlert } from "./error-alert.tsx";

/**
 * Provider and model for a new task: the configured ones first, then what the catalog knows.
 * A choice is checked with the server as it is made, so a missing key (and the variable to set)
 * shows before the task starts, not after. The catalog is asked again when the picker or the
 * window gets focus, so a settings.json edited meanwhile shows without a reload; while it cannot
 * be read, the picker says so and keeps the last good choice.
 */
export function ModelPicker({ onChange }: { onChange(choice: ModelChoice | undefined): void }) {
  const [providers, setProviders] = useState<ProviderOption[]>([]);
  const [choice, setChoice] = useState<ModelChoice>();
  const [problem, setProblem] = useState<string>();
  const [settingsError, setSettingsError] = useState<string>();
  const [noImages, setNoImages] = useState(false);
  const [round, setRound] = useState(0);
  // The person's own pick stays over the configured default when the catalog is asked again.
  const picked = useRef(false);
  const mounted = useRef(true);
  const id = useId();

  const refresh = useCallback(() => {
    void api.models().then((found) => {
      if (!mounted.current || !found.ok) return;
      setSettingsError(found.data.settings_error);
      setProviders(found.data.providers);
      // With settings.json unreadable, the default is the built-in one: keep what was shown.
      if (!picked.current) setChoice((shown) => (found.data.settings_error && shown ? shown : found.data.default));
      // And the choice is checked again: a key or a file may have changed too.
      setRound((n) => n + 1);
    });
  }, []);
  useEffect(() => {
    mounted.current = true;
    refresh();
    window.addEventListener("focus", refresh);
    return () => {
      mounted.current = false;
      window.removeEventListener("focus", refresh);
    };
  }, [refresh]);
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
  }, [choice?.provider, choice?.model, round]);

  if (!choice || providers.length === 0) return null;
  const pick = (next: ModelChoice) => {
    picked.current = true;
    setChoice(next);
  };
  const models = providers.find((p) => p.id === choice.provider)?.models ?? [choice.model];
  return (
    <fieldset className="model-picker" onFocus={(e) => !e.currentTarget.contains(e.relatedTarget) && refresh()}>
      <legend>Model</legend>
      <label htmlFor={`${id}-provider`} className="visually-hidden">
        Provider
      </label>
      <select id={`${id}-provider`} value={choice.provider} onChange={(e) => pick({ provider: e.target.value, model: providers.find((p) => p.id === e.target.value)?.models[0] ?? "" })}>
        {providers.map((p) => (
          <option key={p.id} value={p.id}>
            {p.id}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-model`} className="visually-hidden">
        Model
      </label>
      <select id={`${id}-model`} value={choice.model} onChange={(e) => pick({ provider: choice.provider, model: e.target.value })}>
        {models.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
      {noImages ? <span className="muted">takes no images</span> : null}
      <ErrorAlert message={settingsError ?? problem} />
    </fieldset>
  );
}
