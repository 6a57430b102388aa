import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ImageUploads } from "./image-uploads.js";

const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

/** A request whose body arrives only when `finish` is called, as a slow upload's does. */
function upload(): { req: IncomingMessage; finish: () => void } {
  const body = new PassThrough();
  const req = Object.assign(body, { headers: { "content-type": "image/png", "content-length": String(png.length) } }) as unknown as IncomingMessage;
  return { req, finish: () => body.end(png) };
}

describe("ImageUploads cap", () => {
  it("counts uploads still arriving, and refuses one past the cap before reading its body", async () => {
    const uploads = new ImageUploads();
    const pending = Array.from({ length: 30 }, upload);
    const receiving = pending.map((p) => uploads.receive(p.req));
    // The 31st, while 30 are still arriving: refused at once (nothing of it is kept).
    const extra = await uploads.receive(upload().req);
    expect(extra).toMatchObject({ ok: false, status: 429 });
    for (const p of pending) p.finish();
    const done = await Promise.all(receiving);
    expect(done.every((d) => d.ok)).toBe(true);
    // Held now: still refused; once one is released, the next is taken (control).
    expect(await uploads.receive(upload().req)).toMatchObject({ ok: false, status: 429 });
    uploads.release([(done[0] as { id: string }).id]);
    const next = upload();
    const accepted = uploads.receive(next.req);
    next.finish();
    expect(await accepted).toMatchObject({ ok: true, media_type: "image/png" });
  });
});
