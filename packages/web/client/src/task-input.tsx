import { useState, type KeyboardEvent } from "react";

type Props = { label: string; placeholder: string; busy?: boolean; onSend(text: string): Promise<string | undefined> };

/** The person's message: Enter sends, Shift+Enter starts a new line. */
export function TaskInput({ label, placeholder, busy, onSend }: Props) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string>();
  const [sending, setSending] = useState(false);
  const send = async () => {
    if (text.trim() === "" || sending) return;
    setSending(true);
    const failure = await onSend(text.trim());
    setSending(false);
    setError(failure);
    if (!failure) setText("");
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  };
  return (
    <form
      className="task-input"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <label className="visually-hidden" htmlFor="task-text">
        {label}
      </label>
      <textarea id="task-text" aria-label={label} value={text} placeholder={placeholder} rows={3} onChange={(e) => setText(e.target.value)} onKeyDown={onKeyDown} />
      <div className="task-input-row">
        <span className="hint">Enter sends · Shift+Enter new line{busy ? " · the task is working" : ""}</span>
        <button type="submit" disabled={sending || text.trim() === ""}>
          Send
        </button>
      </div>
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
    </form>
  );
}
