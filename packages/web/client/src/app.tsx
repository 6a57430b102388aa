import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { statusWord } from "@cairn/host/task-status";
import { api, type HistoryEntry, type ModelChoice } from "./api.ts";
import type { EventStore } from "./event-store.ts";
import { fleetApi } from "./fleet-api.ts";
import { FleetView } from "./fleet-view.tsx";
import { FocusChain } from "./focus-chain.tsx";
import { HistoryList } from "./history-list.tsx";
import { ModelPicker } from "./model-picker.tsx";
import { SettingsView } from "./settings-view.tsx";
import { TaskInput } from "./task-input.tsx";
import { storedTask, type Mode, type TaskState } from "./task-state.ts";
import { TaskView } from "./task-view.tsx";
import { ItemView } from "./timeline-item.tsx";

type Theme = "light" | "dark" | "system";

function useTheme(): [Theme, (t: Theme) => void] {
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem("cairn-theme") as Theme | null) ?? "system");
  useEffect(() => {
    if (theme === "system") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    localStorage.setItem("cairn-theme", theme);
  }, [theme]);
  return [theme, setTheme];
}

function NewTask({ onStarted }: { onStarted(id: string): void }) {
  const [mode, setMode] = useState<Mode>("act");
  const [model, setModel] = useState<ModelChoice>();
  return (
    <section className="new-task" aria-label="New task">
      <h2>What should Cairn do?</h2>
      <fieldset className="mode-switch">
        <legend>Mode</legend>
        <label>
          <input type="radio" name="mode" checked={mode === "act"} onChange={() => setMode("act")} /> Act
        </label>
        <label>
          <input type="radio" name="mode" checked={mode === "plan"} onChange={() => setMode("plan")} /> Plan
        </label>
      </fieldset>
      <ModelPicker onChange={setModel} />
      <TaskInput
        label="Task"
        placeholder="Describe the task"
        onSend={async (text, images) => {
          const started = await api.start(text, mode, images, model);
          if (!started.ok) return started.error;
          onStarted(String(started.data.id));
          return undefined;
        }}
      />
    </section>
  );
}

function StoredTask({ entry, onSent, onOpenTask }: { entry: HistoryEntry; onSent(): void; onOpenTask(id: string): void }) {
  // Its recorded events, folded as a live task's are, shown read only until it is carried on.
  const [task, setTask] = useState<TaskState>();
  useEffect(() => {
    let live = true;
    void api.storedEvents(entry.id).then((found) => {
      if (live && found.ok) setTask(storedTask(entry.id, found.data.events, entry.status === "interrupted"));
    });
    return () => {
      live = false;
    };
  }, [entry.id, entry.status]);
  return (
    <section className="task-view" aria-label={`Task: ${entry.title}`}>
      <header className="task-header">
        <h2>{entry.title}</h2>
        <span className="muted">
          {statusWord(entry.status)} · {entry.turns} turn{entry.turns === 1 ? "" : "s"} · {entry.workspace}
        </span>
      </header>
      <div className="timeline">{task ? task.items.map((item) => <ItemView key={item.key} item={item} task={task} onOpenTask={onOpenTask} />) : null}</div>
      {task ? <FocusChain task={task} /> : null}
      <p>This task is stored. Send a message to carry it on here.</p>
      <TaskInput
        label="Task message"
        placeholder="Continue the task"
        onSend={async (text, images) => {
          const sent = await api.send(entry.id, text, images);
          if (!sent.ok) return sent.error;
          onSent();
          return undefined;
        }}
      />
    </section>
  );
}

export function App({ store }: { store: EventStore }) {
  useSyncExternalStore(store.subscribe, store.getVersion);
  // The task on screen is kept in the address (#task=id), so a reload comes back to it.
  const [selected, setSelectedState] = useState<string | undefined>(() => new URLSearchParams(location.hash.slice(1)).get("task") ?? undefined);
  const selectedRef = useRef(selected);
  selectedRef.current = selected;
  const setSelected = (id: string | undefined) => {
    setSelectedState(id);
    setFleetJob(undefined);
    history.replaceState(null, "", id ? `#task=${encodeURIComponent(id)}` : location.pathname);
  };
  // The Fleet view (#fleet, or #fleet=<job> with a job open), when cairn web was given CAIRN_REDIS_URL.
  const [fleetOn, setFleetOn] = useState(false);
  const [fleetJob, setFleetJob] = useState<string | null | undefined>(() => (location.hash.startsWith("#fleet") ? (new URLSearchParams(location.hash.slice(1)).get("fleet") || null) : undefined));
  const showFleet = (job: string | null) => {
    setSelectedState(undefined);
    setFleetJob(job);
    history.replaceState(null, "", job ? `#fleet=${encodeURIComponent(job)}` : "#fleet");
  };
  useEffect(() => {
    void fleetApi.status().then((found) => setFleetOn(found.ok && found.data.enabled));
  }, []);
  const [stored, setStored] = useState<HistoryEntry>();
  const [theme, setTheme] = useTheme();
  const [settingsOpen, setSettingsOpen] = useState(false);
  const running = store.order.filter((id) => store.tasks.get(id)?.running).length;
  const [historyKey, setHistoryKey] = useState(0);
  useEffect(() => setHistoryKey((k) => k + 1), [running, store.deletions, store.handoff.count]);
  // A task on screen that hands its work over: the page follows into the new task.
  const { handoff } = store;
  useEffect(() => {
    if (handoff.count > 0 && selectedRef.current === handoff.from) setSelected(handoff.to);
  }, [handoff.count]);
  /** Any task by its id: one of this server's, else the stored one from the history. */
  const openTask = (id: string) => {
    if (store.tasks.has(id)) return setSelected(id);
    void api.history(true).then(({ tasks }) => {
      const entry = tasks.find((e) => e.id === id);
      if (entry) setStored(entry);
      setSelected(id);
    });
  };

  if (store.connection === "unauthorized") {
    return (
      <main className="unauthorized">
        <h1>Cairn</h1>
        <p role="alert">This page needs the link <code>cairn web</code> printed in your terminal (it carries the access token). Open that link again.</p>
      </main>
    );
  }
  const task = selected ? store.tasks.get(selected) : undefined;
  return (
    <div className="app">
      <header className="top-bar">
        <h1>Cairn</h1>
        <nav className="task-tabs" aria-label="Open tasks">
          <button type="button" aria-current={selected === undefined && fleetJob === undefined ? "page" : undefined} onClick={() => setSelected(undefined)}>
            New task
          </button>
          {fleetOn ? (
            <button type="button" aria-current={fleetJob !== undefined ? "page" : undefined} onClick={() => showFleet(null)}>
              Fleet
            </button>
          ) : null}
          {store.order.map((id) => {
            const t = store.tasks.get(id)!;
            return (
              <button type="button" key={id} aria-current={selected === id ? "page" : undefined} onClick={() => setSelected(id)}>
                {t.running ? <span aria-hidden="true">● </span> : null}
                {(t.title || id).length > 30 ? `${(t.title || id).slice(0, 30)}…` : t.title || id}
              </button>
            );
          })}
        </nav>
        <span className={`connection ${store.connection}`} role="status">
          {store.connection === "live" ? "" : store.connection === "connecting" ? "Connecting…" : "Reconnecting…"}
        </span>
        <button type="button" aria-haspopup="dialog" onClick={() => setSettingsOpen(true)}>
          Settings
        </button>
        <label className="theme">
          <span className="visually-hidden">Theme</span>
          <select value={theme} onChange={(e) => setTheme(e.target.value as Theme)} aria-label="Theme">
            <option value="system">System theme</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
      </header>
      {settingsOpen ? <SettingsView onClose={() => setSettingsOpen(false)} /> : null}
      <div className="columns">
        <main className="main">
          {fleetJob !== undefined && fleetOn ? (
            <FleetView selected={fleetJob ?? undefined} onSelect={(id) => showFleet(id ?? null)} />
          ) : selected === undefined ? (
            <NewTask onStarted={(id) => setSelected(id)} />
          ) : task ? (
            <TaskView task={task} onOpenTask={openTask} />
          ) : stored && stored.id === selected ? (
            <StoredTask entry={stored} onSent={() => setSelected(stored.id)} onOpenTask={openTask} />
          ) : store.connection === "live" && store.version > 1 ? (
            <p role="status">This task is not running here. Pick it in the history to carry it on.</p>
          ) : (
            <p role="status">Loading…</p>
          )}
        </main>
        <HistoryList
          refreshKey={historyKey}
          selected={selected}
          onSelect={(entry) => {
            setStored(entry);
            setSelected(entry.id);
          }}
        />
      </div>
    </div>
  );
}
