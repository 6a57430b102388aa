import { useEffect, useRef, useState } from "react";
import { api } from "./api.ts";

export type Attached = { id: string; name: string; preview: string; mediaType: string; /** Attach order: uploads finish in any order. */ seq: number };

const readAsDataUrl = (file: Blob) =>
  new Promise<string>((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(typeof reader.result === "string" ? reader.result : "");
    reader.onerror = () => resolve("");
    reader.readAsDataURL(file);
  });

/**
 * The pictures attached to the message being written: each is uploaded as it is added (the server
 * checks its format, size and count and answers in one line), shown as a thumbnail, and sent by id.
 */
export function useImageAttachments() {
  const [items, setItems] = useState<Attached[]>([]);
  const [uploading, setUploading] = useState(0);
  const [error, setError] = useState<string>();
  const alive = useRef(true);
  const seq = useRef(0);
  useEffect(() => {
    alive.current = true;
    return () => void (alive.current = false);
  }, []);

  const add = async (files: readonly File[]) => {
    if (files.length === 0) return;
    setError(undefined);
    setUploading((n) => n + files.length);
    for (const file of files) {
      const at = ++seq.current;
      const uploaded = await api.uploadImage(file);
      setUploading((n) => n - 1);
      if (!uploaded.ok) {
        setError(`${file.name || "The picture"}: ${uploaded.error}`);
        continue;
      }
      // The server's verdict names the type; the preview is a data: URL, which the page's CSP allows for images.
      const preview = await readAsDataUrl(file.slice(0, file.size, uploaded.data.media_type));
      if (!alive.current) return;
      const item = { id: uploaded.data.id, name: file.name || `pasted ${uploaded.data.media_type.slice(6)}`, preview, mediaType: uploaded.data.media_type, seq: at };
      setItems((all) => [...all, item].sort((a, b) => a.seq - b.seq));
    }
  };
  const remove = (id: string) => {
    setItems((all) => all.filter((i) => i.id !== id));
    void api.dropImage(id);
  };
  /** After the message went: the server has already let go of them. */
  const clear = () => setItems([]);
  return { items, uploading: uploading > 0, error, setError, add, remove, clear };
}

/** The thumbnails of what will be sent, each with a button to take it out. */
export function AttachedImages({ items, onRemove }: { items: Attached[]; onRemove(id: string): void }) {
  if (items.length === 0) return null;
  return (
    <ul className="attachments" aria-label="Attached images">
      {items.map((item) => (
        <li key={item.id}>
          <img src={item.preview} alt={item.name} />
          <button type="button" className="remove-attachment" aria-label={`Remove image ${item.name}`} title={`Remove ${item.name}`} onClick={() => onRemove(item.id)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

/** Files in a paste or a drop; only pictures from a paste (a pasted file of another kind is not meant as an attachment). */
export function filesOf(data: DataTransfer | null, picturesOnly: boolean): File[] {
  const files = [...(data?.files ?? [])];
  return picturesOnly ? files.filter((f) => f.type.startsWith("image/")) : files;
}
