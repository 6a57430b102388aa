import { describe, expect, it } from "vitest";
import type { IncomingMessage } from "node:http";
import { checkAccess, hostAllowed, hostPort } from "./access-guard.js";

const rules = (host: string) => ({ token: "t", host, port: 4000 });

describe("hostAllowed (DNS rebinding)", () => {
  it("a loopback server answers its own host:port and the other loopback names, on its port only", () => {
    for (const host of ["127.0.0.1:4000", "localhost:4000", "LOCALHOST:4000", "[::1]:4000", "127.0.0.2:4000"]) expect(hostAllowed(host, rules("127.0.0.1")), host).toBe(true);
    for (const host of ["evil.example:4000", "localhost.evil.example:4000", "127.0.0.1:4001", "127.0.0.1", "", "127.0.0.1.nip.io:4000"]) expect(hostAllowed(host, rules("127.0.0.1")), host).toBe(false);
    expect(hostAllowed(undefined, rules("127.0.0.1"))).toBe(false);
  });

  it("a server on every address answers IP literals, never a DNS name (which an attacker can rebind)", () => {
    expect(hostAllowed("192.168.1.20:4000", rules("0.0.0.0"))).toBe(true);
    expect(hostAllowed("[fe80::1]:4000", rules("::"))).toBe(true);
    expect(hostAllowed("my-laptop.local:4000", rules("0.0.0.0"))).toBe(false);
    expect(hostAllowed("evil.example:4000", rules("0.0.0.0"))).toBe(false);
  });

  it("a server bound to a name answers that name only", () => {
    expect(hostAllowed("devbox:4000", rules("devbox"))).toBe(true);
    expect(hostAllowed("127.0.0.1:4000", rules("devbox"))).toBe(false);
  });

  it("IPv6 hosts are written in brackets", () => {
    expect(hostPort("::1", 4000)).toBe("[::1]:4000");
    expect(hostPort("127.0.0.1", 4000)).toBe("127.0.0.1:4000");
  });
});

const request = (headers: Record<string, string>) => ({ headers: { host: "127.0.0.1:4000", ...headers } }) as unknown as IncomingMessage;

describe("checkAccess (the token)", () => {
  it("takes the token from the Authorization header only, never from a cookie (sent to every port of the host)", () => {
    const r = { token: "secret-token", host: "127.0.0.1", port: 4000 };
    expect(checkAccess(request({ authorization: "Bearer secret-token" }), r, true)).toEqual({ ok: true });
    expect(checkAccess(request({ cookie: "cairn_web_4000=secret-token" }), r, true)).toMatchObject({ ok: false, status: 401 });
    expect(checkAccess(request({ authorization: "Bearer secret-toke" }), r, true)).toMatchObject({ ok: false, status: 401 });
    expect(checkAccess(request({}), r, true)).toMatchObject({ ok: false, status: 401 });
    // The page's files need no token, but still our Host.
    expect(checkAccess(request({}), r, false)).toEqual({ ok: true });
    expect(checkAccess(request({ host: "evil.example:4000" }), r, false)).toMatchObject({ ok: false, status: 421 });
  });
});
