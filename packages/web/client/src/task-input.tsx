import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { apiFetch } from "./access-token.ts";
import { ErrorAlert } from "./error-alert.tsx";
import { AttachedImages, filesOf, useImageAttachments } from "./image-attachments.tsx";

type Item = { label: string; replacement: string; detail?: string };
type Completion = { items: Item[]; from: number; to: number };

type Props = {
  label: string;
  placeholder: string;
  busy?: boolean;
  taskId?: string;
  /** `images`: ids of the pictures attached to the message (uploaded already). */
  onSend(text: string, images: string[]): Promise<string | undefined>;
};

async function fetchCompletion(text: string, cursor: number, taskId: string | undefined): Promise<Completion | undefined> {
  if (!/(^\/\S*$)|((^|[\s([{"'])@"?[^\s"]*$)/.test(text.slice(0, cursor))) return undefined;
  const query = new URLSearchParams({ text, cursor: String(cursor), ...(taskId ? { task: taskId } : {}) });
  try {
    const res = await apiFetch(`/api/complete?${query}`);
    if (!res.ok) return undefined;
    const found = (await res.json()) as Completion;
    return found.items.length > 0 ? found : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The person's message: Enter sends, Shift+Enter starts a new line; `@` completes a workspace path
 * and `/` a command (arrows to choose, Tab or Enter to take it, Esc to close). Pictures come with
 * it from the Attach button, a paste, or a drop onto the box.
 */
export function TaskInput({ label, placeholder, busy, taskId, onSend }: Props) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string>();
  const [sending, setSending] = useState(false);
  const [completion, setCompletion] = useState<Completion>();
  const [active, setActive] = useState(0);
  const box = useRef<HTMLTextAreaElement>(null);
  const listId = useId();
  const asked = useRef(0);
  const picker = useRef<HTMLInputElement>(null);
  const images = useImageAttachments();
  const [dropping, setDropping] = useState(false);

  const suggest = (value: string, cursor: number) => {
    const ask = ++asked.current;
    void fetchCompletion(value, cursor, taskId).then((found) => {
      if (ask !== asked.current) return; // a later keystroke asked again
      setCompletion(found);
      setActive(0);
    });
  };
  useEffect(() => () => void (asked.current = -1), []);

  const take = (item: Item) => {
    if (!completion) return;
    const next = text.slice(0, completion.from) + item.replacement + text.slice(completion.to);
    const cursor = completion.from + item.replacement.length;
    setText(next);
    setCompletion(undefined);
    requestAnimationFrame(() => {
      box.current?.setSelectionRange(cursor, cursor);
      if (item.replacement.endsWith("/")) suggest(next, cursor); // a folder: go on into it
    });
  };
  const send = async () => {
    if (text.trim() === "" || sending || images.uploading) return;
    setSending(true);
    const failure = await onSend(text.trim(), images.items.map((i) => i.id));
    setSending(false);
    setError(failure);
    images.setError(undefined);
    if (failure) return;
    setText("");
    images.clear();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (completion) {
      const count = completion.items.length;
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        setActive((a) => (a + (e.key === "ArrowDown" ? 1 : count - 1)) % count);
        return;
      }
      if ((e.key === "Tab" && !e.shiftKey) || (e.key === "Enter" && !e.shiftKey)) {
        e.preventDefault();
        take(completion.items[active] ?? completion.items[0]!);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        setCompletion(undefined);
        return;
      }
    }
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  };
  const optionId = (i: number) => `${listId}-${i}`;
  return (
    <form
      className={dropping ? "task-input dropping" : "task-input"}
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes("Files")) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = "copy";
        setDropping(true);
      }}
      onDragLeave={() => setDropping(false)}
      onDrop={(e) => {
        setDropping(false);
        const files = filesOf(e.dataTransfer, false);
        if (files.length === 0) return;
        e.preventDefault();
        void images.add(files);
      }}
    >
      <label className="visually-hidden" htmlFor={`${listId}-text`}>
        {label}
      </label>
      <textarea
        id={`${listId}-text`}
        ref={box}
        aria-label={label}
        aria-autocomplete="list"
        aria-expanded={completion !== undefined}
        aria-controls={completion ? listId : undefined}
        aria-activedescendant={completion ? optionId(active) : undefined}
        value={text}
        placeholder={placeholder}
        rows={3}
        onChange={(e) => {
          setText(e.target.value);
          suggest(e.target.value, e.target.selectionStart);
        }}
        onKeyDown={onKeyDown}
        onPaste={(e) => {
          const pictures = filesOf(e.clipboardData, true);
          if (pictures.length === 0) return; // text pastes as text
          e.preventDefault();
          void images.add(pictures);
        }}
        onBlur={() => setTimeout(() => setCompletion(undefined), 150)}
      />
      {completion ? (
        <ul className="completions" role="listbox" id={listId} aria-label="Suggestions">
          {completion.items.map((item, i) => (
            <li
              key={item.label}
              id={optionId(i)}
              role="option"
              aria-selected={i === active}
              onMouseDown={(e) => {
                e.preventDefault();
                take(item);
              }}
            >
              <code>{item.label}</code>
              {item.detail ? <span className="muted"> {item.detail}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      <AttachedImages items={images.items} onRemove={images.remove} />
      <div className="task-input-row">
        <span className="hint">
          Enter sends · Shift+Enter new line · @ a file · / a command · paste or drop a picture{busy ? " · the task is working" : ""}
        </span>
        <span className="task-input-buttons">
          <input
            ref={picker}
            type="file"
            className="visually-hidden"
            tabIndex={-1}
            aria-hidden="true"
            accept="image/png,image/jpeg,image/gif,image/webp"
            multiple
            onChange={(e) => {
              const files = [...(e.target.files ?? [])];
              e.target.value = ""; // the same file may be attached again after removing it
              void images.add(files);
            }}
          />
          <button type="button" onClick={() => picker.current?.click()} aria-label={`Attach image to ${label.toLowerCase()}`}>
            Attach image
          </button>
          <button type="submit" disabled={sending || images.uploading || text.trim() === ""}>
            {images.uploading ? "Uploading…" : "Send"}
          </button>
        </span>
      </div>
      <ErrorAlert message={images.error ?? error} />
    </form>
  );
}
