import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { JsonRpcConnection } from "./json-rpc.js";

function frame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
}

function pair() {
  const fromServer = new PassThrough();
  const toServer = new PassThrough();
  const sent: unknown[] = [];
  let pending = Buffer.alloc(0);
  toServer.on("data", (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      const end = pending.indexOf("\r\n\r\n");
      if (end === -1) return;
      const length = Number(/Content-Length: (\d+)/.exec(pending.subarray(0, end).toString())![1]);
      if (pending.length < end + 4 + length) return;
      sent.push(JSON.parse(pending.subarray(end + 4, end + 4 + length).toString()));
      pending = pending.subarray(end + 4 + length);
    }
  });
  const notes: Array<[string, unknown]> = [];
  const connection = new JsonRpcConnection(fromServer, toServer, {
    onNotification: (method, params) => notes.push([method, params]),
    onRequest: (method) => (method === "workspace/configuration" ? [{}] : undefined),
  });
  return { fromServer, sent, notes, connection };
}

it("reads messages split anywhere, several per chunk, multi-byte text included", async () => {
  const { fromServer, sent, notes, connection } = pair();
  const answer = connection.request("initialize", {});
  const bytes = Buffer.concat([frame({ jsonrpc: "2.0", method: "window/logMessage", params: { message: "héllo ✓" } }), frame({ jsonrpc: "2.0", id: 1, result: { capabilities: {} } })]);
  // One byte at a time: a header, a body and a character split across writes.
  for (let i = 0; i < bytes.length; i += 1) fromServer.write(bytes.subarray(i, i + 1));
  await expect(answer).resolves.toEqual({ capabilities: {} });
  expect(notes).toEqual([["window/logMessage", { message: "héllo ✓" }]]);
  expect(sent[0]).toMatchObject({ id: 1, method: "initialize" });
});

it("answers the server's own requests, null for those it does not know", async () => {
  const { fromServer, sent } = pair();
  fromServer.write(Buffer.concat([frame({ jsonrpc: "2.0", id: "a", method: "workspace/configuration", params: {} }), frame({ jsonrpc: "2.0", id: 7, method: "client/registerCapability", params: {} })]));
  await expect.poll(() => sent.length).toBe(2);
  expect(sent).toEqual([
    { jsonrpc: "2.0", id: "a", result: [{}] },
    { jsonrpc: "2.0", id: 7, result: null },
  ]);
});

it("an error answer rejects its request; a closed stream rejects every waiting one and later ones", async () => {
  const { fromServer, connection } = pair();
  const failing = connection.request("x", {});
  const waiting = connection.request("y", {});
  fromServer.write(frame({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "no such method" } }));
  await expect(failing).rejects.toThrow("no such method");
  fromServer.end();
  await expect(waiting).rejects.toThrow("the server closed its output");
  await expect(connection.request("z", {})).rejects.toThrow("the server closed its output");
});
