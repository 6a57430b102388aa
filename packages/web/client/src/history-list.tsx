import { useEffect, useState } from "react";
import { api, type HistoryEntry } from "./api.ts";
import { ErrorAlert } from "./error-alert.tsx";

type Props = { refreshKey: number; selected: string | undefined; onSelect(entry: HistoryEntry): void };

/** Stored tasks, newest first, with a search over titles and workspaces. */
export function HistoryList({ refreshKey, selected, onSelect }: Props) {
  const [entries, setEntries] = useState<HistoryEntry[]>([]);
  const [query, setQuery] = useState("");
  const [confirming, setConfirming] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    void api.history().then((found) => live && setEntries(found));
    return () => {
      live = false;
    };
  }, [refreshKey]);
  const q = query.trim().toLowerCase();
  const shown = q ? entries.filter((e) => e.title.toLowerCase().includes(q) || e.workspace.toLowerCase().includes(q)) : entries;
  return (
    <nav className="history" aria-label="History">
      <h2>History</h2>
      <input type="search" aria-label="Search history" placeholder="Search" value={query} onChange={(e) => setQuery(e.target.value)} />
      <ErrorAlert message={error} />
      <ul>
        {shown.map((entry) => (
          <li key={entry.id}>
            <button type="button" className="history-open" aria-current={entry.id === selected ? "true" : undefined} onClick={() => onSelect(entry)}>
              <span className="history-title">{entry.title}</span>
              <span className="muted">
                {entry.status} · {new Date(entry.updatedAt).toLocaleString()}
              </span>
              {entry.parent?.relation === "handoff" ? <span className="muted">handed over from {entries.find((e) => e.id === entry.parent!.id)?.title ?? entry.parent.id}</span> : null}
            </button>
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
          </li>
        ))}
        {shown.length === 0 ? <li className="muted">No stored tasks{q ? " match" : " yet"}.</li> : null}
      </ul>
    </nav>
  );
}
