import { useEffect, useState } from "react";
import { DiffView } from "./diff-view.tsx";
import { openEventStream } from "./event-stream.ts";
import { fleetApi, type FleetDiff, type FleetJob } from "./fleet-api.ts";
import { applyEntry, type StreamEntry, type TaskState } from "./task-state.ts";
import { ItemView } from "./timeline-item.tsx";

const unfinished = new Set(["waiting", "active", "delayed", "prioritized", "paused", "cancelling"]);
const short = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const cost = (usd: number | null | undefined) => (usd === null || usd === undefined ? "" : `$${usd.toFixed(4)}`);

/** A job's events from its Redis stream, folded as a local task's are (core's fold), live while it runs. */
function useJobEvents(id: string): TaskState | undefined {
  const [task, setTask] = useState<TaskState>();
  useEffect(() => {
    const tasks = new Map<string, TaskState>();
    setTask(undefined);
    let scheduled = false;
    const close = openEventStream(fleetApi.eventsUrl(id), {
      onMessage: (data) => {
        const entry = JSON.parse(data) as StreamEntry;
        applyEntry(tasks, entry);
        if (scheduled) return;
        scheduled = true;
        // One render per frame, however many events arrive in it.
        requestAnimationFrame(() => {
          scheduled = false;
          setTask(tasks.get(entry.task_id));
        });
      },
    });
    return close;
  }, [id]);
  return task;
}

function BranchDiff({ job }: { job: FleetJob }) {
  const [diff, setDiff] = useState<FleetDiff | null>();
  const [error, setError] = useState<string>();
  const branch = job.result?.branch;
  useEffect(() => {
    if (!branch) return;
    let live = true;
    void fleetApi.diff(job.id).then((found) => {
      if (!live) return;
      setDiff(found.ok ? found.data.diff : undefined);
      setError(found.ok ? undefined : found.error);
    });
    return () => {
      live = false;
    };
  }, [job.id, branch]);
  if (!branch) return null;
  return (
    <section aria-label="Branch diff" className="fleet-diff">
      <h3>
        Changes on <code>{branch}</code>
      </h3>
      {error ? <p className="error">{error}</p> : null}
      {diff === undefined && !error ? <p className="muted">Reading the branch…</p> : null}
      {diff?.files.map((file) =>
        file.note ? (
          <p key={file.path}>
            <code>{file.path}</code> {file.status}: {file.note}
          </p>
        ) : (
          <DiffView key={file.path} path={file.path} oldText={file.old_text} newText={file.new_text ?? ""} />
        ),
      )}
      {diff && diff.more_files > 0 ? <p className="muted">…and {diff.more_files} more files (git diff {diff.base.slice(0, 10)} {diff.branch}).</p> : null}
    </section>
  );
}

function JobDetail({ job, onChanged }: { job: FleetJob; onChanged(): void }) {
  const task = useJobEvents(job.id);
  const [message, setMessage] = useState<{ text: string; error: boolean }>();
  const act = async (what: "cancel" | "retry") => {
    const done = what === "cancel" ? await fleetApi.cancel(job.id) : await fleetApi.retry(job.id);
    setMessage(done.ok ? { text: done.data.message, error: false } : { text: done.error, error: true });
    onChanged();
  };
  const r = job.result;
  const canCancel = unfinished.has(job.state) && job.state !== "cancelling";
  const canRetry = !unfinished.has(job.state);
  return (
    <section className="task-view" aria-label={`Job ${job.id}`}>
      <header className="task-header">
        <h2>Job {job.id}</h2>
        <span className="muted">
          {job.repo}
          {job.ref ? ` at ${job.ref}` : ""}
        </span>
        <span className={`job-state state-${job.state}`}>{job.state}</span>
        <div className="job-buttons">
          {canCancel ? (
            <button type="button" className="stop" onClick={() => void act("cancel")}>
              Cancel job
            </button>
          ) : null}
          {canRetry ? (
            <button type="button" onClick={() => void act("retry")}>
              Retry job
            </button>
          ) : null}
        </div>
      </header>
      <div className="msg user">{job.task}</div>
      {message ? (
        <p role={message.error ? "alert" : "status"} className={message.error ? "error" : "muted"}>
          {message.text}
        </p>
      ) : null}
      <div className="timeline" aria-label="Job events">
        {task ? task.items.map((item) => <ItemView key={item.key} item={item} task={task} />) : <p className="muted">No events yet.</p>}
      </div>
      {job.failed_reason ? <p className="error">Failed: {job.failed_reason}</p> : null}
      {r ? (
        <section aria-label="Job result" className="job-result">
          <h3>Result: {r.outcome}</h3>
          {r.answer ? <p className="result-text">{r.answer}</p> : null}
          <dl>
            <dt>Branch</dt>
            <dd>{r.branch ? `${r.branch}${r.pushed_to ? ` (pushed to ${r.pushed_to})` : ""}` : "no changes"}</dd>
            <dt>Files changed</dt>
            <dd>{r.files_changed.length > 0 ? r.files_changed.join(", ") : "none"}</dd>
            <dt>Tokens</dt>
            <dd>
              {r.tokens.input} in, {r.tokens.output} out
            </dd>
            <dt>Cost</dt>
            <dd>{cost(r.cost_usd) || "unknown"}</dd>
            <dt>Worker</dt>
            <dd>
              {r.worker}, attempt {r.attempt}, {(r.duration_ms / 1000).toFixed(1)} s
            </dd>
          </dl>
        </section>
      ) : null}
      <BranchDiff job={job} />
    </section>
  );
}

/** The fleet on the Redis cairn web was pointed at: its jobs as they change, and one job in full. */
export function FleetView({ selected, onSelect }: { selected: string | undefined; onSelect(id: string | undefined): void }) {
  const [jobs, setJobs] = useState<FleetJob[]>([]);
  const [error, setError] = useState<string>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    const look = async () => {
      const found = await fleetApi.jobs();
      if (!live) return;
      if (found.ok) setJobs(found.data.jobs);
      setError(found.ok ? undefined : found.error);
    };
    void look();
    // Job states change in Redis, written by workers anywhere: the page looks once a second.
    const timer = setInterval(() => void look(), 1000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [tick]);
  const job = jobs.find((j) => j.id === selected);
  return (
    <section className="fleet" aria-label="Fleet">
      <h2>Fleet</h2>
      {error ? (
        <p role="alert" className="warning">
          {error}
        </p>
      ) : null}
      {jobs.length === 0 && !error ? <p className="muted">No jobs. Add one with cairn fleet add --repo &lt;repo&gt; -- "task".</p> : null}
      {jobs.length > 0 ? (
        <div className="fleet-table-wrap">
          <table className="fleet-table">
            <caption className="visually-hidden">Fleet jobs</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">State</th>
                <th scope="col">Repository</th>
                <th scope="col">Task</th>
                <th scope="col">Worker</th>
                <th scope="col">Attempts</th>
                <th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((j) => (
                <tr key={j.id} aria-selected={j.id === selected}>
                  <td>
                    <button type="button" aria-current={j.id === selected ? "true" : undefined} onClick={() => onSelect(j.id)}>
                      {j.id}
                    </button>
                  </td>
                  <td className={`job-state state-${j.state}`}>{j.state}</td>
                  <td title={j.repo}>{short(j.repo, 32)}</td>
                  <td title={j.task}>{short(j.task, 48)}</td>
                  <td>{j.worker ?? ""}</td>
                  <td>{j.attempts}</td>
                  <td>{cost(j.result?.cost_usd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {job ? <JobDetail key={job.id} job={job} onChanged={() => setTick((t) => t + 1)} /> : selected ? <p className="muted">Job {selected} is not in the queue.</p> : null}
    </section>
  );
}
