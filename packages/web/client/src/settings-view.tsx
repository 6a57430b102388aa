import { useEffect, useId, useRef, useState } from "react";
import { ErrorAlert } from "./error-alert.tsx";
import { settingsApi, type McpServerEntry, type Settings, type SettingsChange } from "./settings-api.ts";
import "./settings-view.css";

/**
 * The person's settings (CAIRN_HOME/settings.json, and their MCP servers in mcp_settings.json) in
 * one dialog: Cline's auto-approve menu, the request limit, the model, the sandbox, MCP servers and
 * rules files. Each control saves as it is changed; the server checks the value with settings.json's
 * own schema, so a refused one is shown in a line and the control goes back to what is saved.
 * Tasks read the file when they open: a change applies from the next task.
 */
export function SettingsView({ onClose }: { onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [settings, setSettings] = useState<Settings>();
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    dialog.current?.showModal();
    void settingsApi.read().then((found) => (found.ok ? setSettings(found.data) : setError(found.error)));
  }, []);

  const change = async (c: SettingsChange) => {
    setBusy(true);
    setSaved(false);
    const done = await settingsApi.change(c);
    setBusy(false);
    if (done.ok) {
      setSettings(done.data);
      setError(undefined);
      setSaved(true);
      return;
    }
    setError(done.error);
    // The control shows what is saved, not what was refused.
    const fresh = await settingsApi.read();
    if (fresh.ok) setSettings(fresh.data);
  };

  return (
    <dialog ref={dialog} className="settings-view" aria-label="Settings" onClose={onClose}>
      <header className="settings-head">
        <h2>Settings</h2>
        <button type="button" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </header>
      {settings ? <SettingsForm settings={settings} busy={busy} onChange={change} onServer={(server) => setSettings({ ...settings, mcpServers: settings.mcpServers.map((s) => (s.name === server.name ? server : s)) })} /> : <p role="status">Loading…</p>}
      <ErrorAlert message={error ?? settings?.problem} />
      <p role="status" className="muted settings-saved">
        {saved && !error ? `Saved in ${settings?.file ?? "settings.json"}; it applies from the next task.` : ""}
      </p>
    </dialog>
  );
}

function SettingsForm({ settings, busy, onChange, onServer }: { settings: Settings; busy: boolean; onChange(c: SettingsChange): Promise<void>; onServer(s: McpServerEntry): void }) {
  const id = useId();
  const [limit, setLimit] = useState(settings.maxRequests === undefined ? "" : String(settings.maxRequests));
  const [model, setModel] = useState(settings.model);
  useEffect(() => setLimit(settings.maxRequests === undefined ? "" : String(settings.maxRequests)), [settings.maxRequests]);
  useEffect(() => setModel(settings.model), [settings.model, settings.provider]);
  /** A line under a group whose setting something above settings.json sets for tasks here. */
  const wins = (...keys: string[]) => {
    const over = settings.overridden.filter((o) => keys.includes(o.key));
    return over.length > 0 ? <p className="warning">{over.map((o) => `${o.key} is set by ${o.by}, which wins over this for tasks here.`).join(" ")}</p> : null;
  };
  const key = settings.keyNeeded ? (settings.keySet ? `key set (${settings.keyVariables[0]})` : `no key: set ${settings.keyVariables.join(" or ")}`) : "no key needed";

  return (
    <div className="settings-groups">
      <fieldset className="settings-group">
        <legend>Auto-approve</legend>
        <p className="muted">What runs without asking first.</p>
        <div className="settings-checks">
          {settings.autoApprove.map((a) => (
            <label key={a.name}>
              <input type="checkbox" checked={a.on} disabled={busy} onChange={(e) => void onChange({ kind: "autoApprove", name: a.name, on: e.target.checked })} /> {a.name}
            </label>
          ))}
        </div>
        <form
          className="settings-row"
          onSubmit={(e) => {
            e.preventDefault();
            void onChange({ kind: "maxRequests", value: limit.trim() });
          }}
        >
          <label htmlFor={`${id}-limit`}>Max requests per task</label>
          <input id={`${id}-limit`} inputMode="numeric" value={limit} placeholder="no limit" size={8} onChange={(e) => setLimit(e.target.value)} />
          <button type="submit" disabled={busy}>
            Set limit
          </button>
        </form>
        {wins("autoApprove", "maxTurns")}
      </fieldset>

      <fieldset className="settings-group">
        <legend>Model</legend>
        <form
          className="settings-row"
          onSubmit={(e) => {
            e.preventDefault();
            void onChange({ kind: "model", provider: settings.provider, model: model.trim() });
          }}
        >
          <label htmlFor={`${id}-provider`}>Provider</label>
          <select id={`${id}-provider`} value={settings.provider} disabled={busy} onChange={(e) => void onChange({ kind: "model", provider: e.target.value })}>
            {settings.providers.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
          <label htmlFor={`${id}-model`}>Model</label>
          <input id={`${id}-model`} value={model} onChange={(e) => setModel(e.target.value)} />
          <button type="submit" disabled={busy}>
            Use model
          </button>
        </form>
        <p className={settings.keySet ? "muted" : "warning"}>{key}</p>
        {wins("provider", "model")}
      </fieldset>

      <fieldset className="settings-group">
        <legend>Sandbox</legend>
        <div className="settings-row">
          <label htmlFor={`${id}-sandbox`}>Sandbox mode</label>
          <select id={`${id}-sandbox`} value={settings.sandboxMode} disabled={busy} onChange={(e) => void onChange({ kind: "sandboxMode", value: e.target.value })}>
            {settings.sandboxModes.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
        {wins("sandbox")}
      </fieldset>

      <fieldset className="settings-group">
        <legend>MCP servers</legend>
        {settings.mcpServers.length === 0 ? <p className="muted">None configured (cairn mcp add).</p> : null}
        <ul className="settings-list">
          {settings.mcpServers.map((s) => (
            <McpServerRow key={s.name} server={s} busy={busy} onChange={onChange} onServer={onServer} />
          ))}
        </ul>
      </fieldset>

      <fieldset className="settings-group">
        <legend>Rules files</legend>
        {settings.rules.length === 0 ? <p className="muted">No rules files in this workspace.</p> : null}
        <ul className="settings-list">
          {settings.rules.map((r) => (
            <li key={r.path}>
              <label>
                <input type="checkbox" checked={r.on} disabled={busy} onChange={(e) => void onChange({ kind: "rule", path: r.path, on: e.target.checked })} /> {r.source}
              </label>
              {r.scope === "global" ? <span className="muted"> (global)</span> : null}
            </li>
          ))}
        </ul>
      </fieldset>
    </div>
  );
}

function McpServerRow({ server, busy, onChange, onServer }: { server: McpServerEntry; busy: boolean; onChange(c: SettingsChange): Promise<void>; onServer(s: McpServerEntry): void }) {
  const [restarting, setRestarting] = useState(false);
  const [problem, setProblem] = useState<string>();
  const restart = async () => {
    setRestarting(true);
    const done = await settingsApi.restartServer(server.name);
    setRestarting(false);
    setProblem(done.ok ? undefined : done.error);
    if (done.ok) onServer(done.data);
  };
  return (
    <li className="settings-server">
      <div className="settings-row">
        <label>
          <input type="checkbox" checked={server.enabled} disabled={busy || server.source !== "global"} onChange={(e) => void onChange({ kind: "mcpServer", name: server.name, enabled: e.target.checked })} /> {server.name}
        </label>
        <span className="muted">{restarting ? "starting…" : server.status}</span>
        <button type="button" aria-label={`Restart ${server.name}`} disabled={restarting || !server.enabled} onClick={() => void restart()}>
          Restart
        </button>
      </div>
      <p className="muted settings-tools">{server.tools.length > 0 ? `Tools: ${server.tools.join(", ")}` : "Tools not known yet (restart to list them)."}</p>
      <ErrorAlert message={problem ?? server.error} />
    </li>
  );
}
