import { useEffect, useState } from "react";
import { costText, statusWord } from "@cairn/host/task-status";
import { api, type HistoryEntry } from "./api.ts";
import { ErrorAlert } from "./error-alert.tsx";

type Props = { refreshKey: number; selected: string | undefined; onSelect(entry: HistoryEntry): void };

/** What a task is to the one listed above it. */
const relation = { handoff: "handed over from", subagent: "sub-agent of" } as const;

/**
 * Stored tasks of this server's workspace, newest first (every workspace's with "All
 * workspaces"), each task's sub-agents and hand-offs under it (folded away on request), with a
 * search over titles and workspaces. Statuses in the words cairn history uses; each finished task
 * says what it cost, or its tokens when the price is unknown.
 */
export function HistoryList({ refreshKey, selected, onSelect }: Props) {
  const [entries, setEntries] = useState<HistoryEntry[]>([]);
  const [all, setAll] = useState(false);
  const [query, setQuery] = useState("");
  const [folded, setFolded] = useState<ReadonlySet<string>>(new Set());
  const [confirming, setConfirming] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    void api.history(all).then((found) => live && setEntries(found.tasks));
    return () => {
      live = false;
    };
  }, [refreshKey, all]);
  const q = query.trim().toLowerCase();
  const title = (id: string) => entries.find((e) => e.id === id)?.title ?? id;
  const childCount = (index: number) => {
    let n = 0;
    while (entries[index + 1 + n] && entries[index + 1 + n]!.depth > entries[index]!.depth) n++;
    return n;
  };
  // Rows under a folded task are left out until the next row as deep as it; a search shows every match.
  const shown: Array<{ entry: HistoryEntry; under: number }> = [];
  let foldedAt: number | undefined;
  entries.forEach((entry, index) => {
    if (foldedAt !== undefined && entry.depth > foldedAt) return;
    foldedAt = !q && folded.has(entry.id) ? entry.depth : undefined;
    if (q && !entry.title.toLowerCase().includes(q) && !entry.workspace.toLowerCase().includes(q)) return;
    shown.push({ entry, under: childCount(index) });
  });
  const fold = (id: string) => setFolded((now) => (now.has(id) ? new Set([...now].filter((f) => f !== id)) : new Set([...now, id])));
  return (
    <nav className="history" aria-label="History">
      <h2>History</h2>
      <label className="history-all">
        <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> All workspaces
      </label>
      <input type="search" aria-label="Search history" placeholder="Search" value={query} onChange={(e) => setQuery(e.target.value)} />
      <ErrorAlert message={error} />
      <ul>
        {shown.map(({ entry, under }) => {
          const cost = entry.status === "running" ? "" : costText(entry);
          return (
            <li key={entry.id} className={entry.depth > 0 ? `history-child depth-${Math.min(entry.depth, 4)}` : undefined}>
              <button type="button" className="history-open" aria-current={entry.id === selected ? "true" : undefined} onClick={() => onSelect(entry)}>
                <span className="history-title">{entry.title}</span>
                <span className="muted">
                  {statusWord(entry.status)} · {new Date(entry.updatedAt).toLocaleString()}
                  {cost ? <span className="history-cost"> · {cost}</span> : null}
                </span>
                {entry.parent && entry.depth > 0 ? (
                  <span className="muted">
                    {relation[entry.parent.relation]} {title(entry.parent.id)}
                  </span>
                ) : null}
                {all && entry.depth === 0 ? <span className="muted history-workspace">{entry.workspace}</span> : null}
              </button>
              <span className="history-links">
                {under > 0 && !q ? (
                  <button type="button" className="link history-fold" aria-expanded={!folded.has(entry.id)} onClick={() => fold(entry.id)}>
                    {folded.has(entry.id) ? `Show ${under} under it` : `Hide ${under} under it`}
                  </button>
                ) : null}
                {confirming === entry.id ? (
                  <span className="history-actions">
                    <button
                      type="button"
                      className="deny"
                      aria-label={`Delete for good: ${entry.title}`}
                      onClick={() =>
                        void api.remove(entry.id).then((failure) => {
                          setError(failure);
                          setConfirming(undefined);
                          if (!failure) setEntries((all) => all.filter((e) => e.id !== entry.id));
                        })
                      }
                    >
                      Delete for good
                    </button>
                    <button type="button" onClick={() => setConfirming(undefined)}>
                      Keep
                    </button>
                  </span>
                ) : (
                  <button type="button" className="link history-delete" aria-label={`Delete ${entry.title}`} onClick={() => setConfirming(entry.id)}>
                    Delete
                  </button>
                )}
              </span>
            </li>
          );
        })}
        {shown.length === 0 ? <li className="muted">No stored tasks{q ? " match" : all ? " yet" : " in this workspace yet"}.</li> : null}
      </ul>
    </nav>
  );
}
