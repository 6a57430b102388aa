import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/**
 * Who may talk to the server. A local web server is reachable by every page the person visits,
 * and by every process on this machine, so each API request must prove three things: it carries
 * the token printed at start in an Authorization header, it names this server in its Host header
 * (a page on a rebound DNS name cannot), and it does not come from another origin (another site,
 * or another port of this host). Never a cookie: browsers send a 127.0.0.1 cookie to every port of
 * 127.0.0.1, so any local server the person opens would receive it and could replay it.
 */
export type AccessRules = {
  token: string;
  /** The host the server is bound to, as given (127.0.0.1, localhost, ::1, 0.0.0.0, a name). */
  host: string;
  port: number;
};

export type AccessVerdict = { ok: true } | { ok: false; status: 401 | 403 | 421; message: string };

const loopbackNames = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
const wildcardHosts = new Set(["0.0.0.0", "::", "[::]"]);

export function isLoopback(host: string): boolean {
  return loopbackNames.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The host:port a browser puts in the Host header for this server (IPv6 in brackets). */
export function hostPort(host: string, port: number): string {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare.includes(":") ? `[${bare}]:${port}` : `${bare}:${port}`;
}

const ipLiteral = (host: string) => /^\d+\.\d+\.\d+\.\d+$/.test(host) || /^\[[0-9a-f:.]+\]$/i.test(host);

/** Host header check. A name other than ours is what DNS rebinding looks like; an IP literal cannot be rebound. */
export function hostAllowed(header: string | undefined, rules: AccessRules): boolean {
  if (!header) return false;
  const expected = hostPort(rules.host, rules.port);
  if (header.toLowerCase() === expected.toLowerCase()) return true;
  const match = /^(.*):(\d+)$/.exec(header);
  if (!match || Number(match[2]) !== rules.port) return false;
  const name = match[1]!.toLowerCase();
  if (isLoopback(rules.host)) return isLoopback(name);
  if (wildcardHosts.has(rules.host)) return ipLiteral(name) || isLoopback(name);
  return false;
}

function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token from `Authorization: Bearer <token>`, which only the page's own script (or the person) can add. */
export function tokenOf(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  return auth?.startsWith("Bearer ") ? auth.slice("Bearer ".length).trim() : undefined;
}

/** Cross-origin check: an Origin that is not ours, or a browser saying the request comes from another site. */
export function originAllowed(req: IncomingMessage, rules: AccessRules): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let host: string;
    try {
      const url = new URL(origin);
      if (url.protocol !== "http:") return false;
      host = url.host;
    } catch {
      return false;
    }
    if (!hostAllowed(host, rules)) return false;
    if (req.headers.host && host.toLowerCase() !== req.headers.host.toLowerCase()) return false;
  }
  const site = req.headers["sec-fetch-site"];
  return site === undefined || site === "same-origin" || site === "none";
}

/**
 * The three checks, in order. `needsToken` is false for the page's static files, which hold no
 * secret: the page reads the token from its link's fragment (never sent to a server) and adds it
 * to each API call itself.
 */
export function checkAccess(req: IncomingMessage, rules: AccessRules, needsToken: boolean): AccessVerdict {
  if (!hostAllowed(req.headers.host, rules)) {
    return { ok: false, status: 421, message: `Refused: the Host header must be ${hostPort(rules.host, rules.port)}.` };
  }
  if (!originAllowed(req, rules)) return { ok: false, status: 403, message: "Refused: cross-origin requests are not allowed." };
  if (needsToken && !sameToken(tokenOf(req), rules.token)) {
    return { ok: false, status: 401, message: "Refused: open the link cairn web printed (it carries the access token)." };
  }
  return { ok: true };
}
