import { useState } from "react";
import { DiffView } from "./diff-view.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { problemsOf, type ApprovalPreview, type Problems, type ToolCard as ToolCallRecord } from "./task-state.ts";

const statusText: Record<ToolCallRecord["status"], string> = {
  pending: "pending",
  awaiting_approval: "needs your approval",
  running: "running",
  completed: "done",
  failed: "failed",
  denied: "denied",
  cancelled: "cancelled",
};

function Preview({ preview }: { preview: ApprovalPreview }) {
  switch (preview.type) {
    case "diff":
      return <DiffView path={preview.path} oldText={preview.old_text} newText={preview.new_text} />;
    case "diff_unavailable":
      return <p className="error">{preview.reason}</p>;
    case "command":
      return (
        <div className="command-preview">
          <pre>
            <code>$ {preview.command}</code>
          </pre>
          <p className="muted">
            in {preview.cwd} · {preview.sandbox.mode === "off" ? `no sandbox (${preview.sandbox.reason})` : `sandbox: ${preview.sandbox.mode}, network ${preview.sandbox.network}`}
            {preview.reasons.length > 0 ? ` · ${preview.reasons.join("; ")}` : ""}
          </p>
        </div>
      );
    case "browser":
      return <p>{preview.action}{preview.url ? ` ${preview.url}` : ""}</p>;
    case "mcp":
      return (
        <pre>
          <code>
            {preview.server}/{preview.tool} {JSON.stringify(preview.arguments, null, 2)}
          </code>
        </pre>
      );
    case "paths":
      return (
        <ul>
          {preview.paths.map((p) => (
            <li key={p}>
              <code>{p}</code>
            </li>
          ))}
        </ul>
      );
  }
}

type Scope = "task" | "workspace" | "user";
type Props = { record: ToolCallRecord; onAnswer(approved: boolean, feedback?: string, remember?: Scope): Promise<string | undefined> };

const scopeText: Record<Scope, string> = { task: "for this task", workspace: "in this workspace", user: "everywhere (you)" };

/** The errors an edit introduced, one line each ("src/a.ts:3:7 TS2345 message"), the rest counted. */
function ProblemList({ problems }: { problems: Problems }) {
  const more = problems.count - problems.shown.length;
  return (
    <section className="problems error" aria-label="New problems">
      <p>{`${problems.count} new problem${problems.count === 1 ? "" : "s"}:`}</p>
      <ul>
        {problems.shown.map((p, i) => (
          <li key={i}>
            <code>{`${p.path}:${p.line}:${p.column}`}</code>
            {p.code === undefined ? "" : ` ${p.code}`} {p.message}
          </li>
        ))}
      </ul>
      {more > 0 ? <p className="muted">{`… ${more} more`}</p> : null}
    </section>
  );
}

/** One tool call: what it does, its status, and when it waits for the person, the approval itself. */
export function ToolCard({ record, onAnswer }: Props) {
  const problems = problemsOf(record);
  const [feedback, setFeedback] = useState("");
  const [asking, setAsking] = useState(false);
  const [scope, setScope] = useState<Scope>("task");
  const [error, setError] = useState<string>();
  const waiting = record.status === "awaiting_approval";
  // What the call would do as core previewed it once: its approval's preview, or an edit's diff from its running update.
  const preview = record.preview;
  const answer = async (approved: boolean, withFeedback?: string, remember?: Scope) => {
    setError(await onAnswer(approved, withFeedback, remember));
  };
  return (
    <article className={`tool-card status-${record.status}`} aria-label={`${record.name}: ${statusText[record.status]}`}>
      <header>
        <span className="tool-name">{record.name}</span>
        <span className="tool-summary">{record.summary}</span>
        <span className={`status status-${record.status}`} role="status">
          {statusText[record.status]}
        </span>
      </header>
      {waiting && record.approval ? (
        <section className="approval" aria-label="Approval">
          <p>
            <strong>{record.approval.summary}</strong>
          </p>
          {record.approval.protected ? (
            <p className="warning">
              Protected file {record.approval.protected.path}: {record.approval.protected.reason}
            </p>
          ) : null}
          {preview ? <Preview preview={preview} /> : null}
          <div className="approval-buttons">
            <button type="button" className="approve" onClick={() => void answer(true)}>
              Approve
            </button>
            <button type="button" className="deny" onClick={() => void answer(false)}>
              Deny
            </button>
            <button type="button" className="link" aria-expanded={asking} onClick={() => setAsking(!asking)}>
              Deny with feedback…
            </button>
          </div>
          {record.approval.suggested_rule ? (
            <div className="always-allow">
              <button type="button" onClick={() => void answer(true, undefined, scope)}>
                Always allow
              </button>{" "}
              <code>{record.approval.suggested_rule}</code>{" "}
              <label>
                <span className="visually-hidden">Remember it</span>
                <select aria-label="Remember it" value={scope} onChange={(e) => setScope(e.target.value as Scope)}>
                  {(Object.keys(scopeText) as Scope[]).map((s) => (
                    <option key={s} value={s}>
                      {scopeText[s]}
                    </option>
                  ))}
                </select>
              </label>
            </div>
          ) : null}
          {asking ? (
            <form
              className="feedback"
              onSubmit={(e) => {
                e.preventDefault();
                void answer(false, feedback);
              }}
            >
              <label>
                What should it do instead?
                <input value={feedback} onChange={(e) => setFeedback(e.target.value)} />
              </label>
              <button type="submit">Deny and send</button>
            </form>
          ) : null}
          <ErrorAlert message={error} />
        </section>
      ) : preview && record.kind === "edit" ? (
        <details>
          <summary>Diff</summary>
          <Preview preview={preview} />
        </details>
      ) : null}
      {record.output ? (
        <pre className="tool-output" aria-label="Output">
          {record.output}
        </pre>
      ) : null}
      {problems && problems.shown.length > 0 ? <ProblemList problems={problems} /> : null}
      {record.decision && !record.decision.approved ? <p className="muted">Denied by {record.decision.by}: {record.decision.reason}{record.decision.feedback ? ` — “${record.decision.feedback}”` : ""}</p> : null}
      {record.content !== undefined && (record.is_error || record.status !== "completed") ? <p className={record.is_error ? "error" : "muted"}>{record.content.slice(0, 500)}</p> : null}
    </article>
  );
}
