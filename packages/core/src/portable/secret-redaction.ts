import { isSecretVariable } from "../sandbox/command-env.js";

/** What replaces a secret in an exported task; `kind` says what it was, never its value. */
export const redactionMark = (kind: string) => `[REDACTED:${kind}]`;

/**
 * Shapes of credentials whose look gives them away, wherever they appear (a file the model read,
 * a command's output, the model's own words). Order matters: the specific shapes go before the
 * generic `sk-` one, so an Anthropic key is counted as one.
 */
const secretShapes: ReadonlyArray<{ kind: string; pattern: RegExp }> = [
  { kind: "private-key", pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g },
  { kind: "anthropic-key", pattern: /sk-ant-[A-Za-z0-9_-]{16,}/g },
  { kind: "api-key", pattern: /\bsk-(?:proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_-]{20,}/g },
  { kind: "github-token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/g },
  { kind: "gitlab-token", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: "slack-token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: "aws-access-key", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: "google-api-key", pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: "npm-token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: "huggingface-token", pattern: /\bhf_[A-Za-z0-9]{30,}/g },
  { kind: "stripe-key", pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{20,}/g },
  { kind: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g },
];

/** The password of a URL (postgres://app:pw@db/app) goes; the rest of the address stays readable. */
const urlPassword = /\b([a-z][a-z0-9+.-]*:\/\/[^/?#@\s:]*:)([^/?#@\s]+)(@)/gi;

/** `Authorization: Bearer <token>` in a command's output or a request the model wrote. */
const bearerToken = /\b(Bearer\s+)([A-Za-z0-9._~+/-]{20,}=*)/g;

/**
 * Values shorter than this are not looked for: a variable named like a secret that holds "1" or
 * "true" would otherwise take every such word out of the conversation.
 */
const shortestSecretValue = 8;

/**
 * The one key of a block, by the block's type, whose value is opaque data: a thinking block's
 * signature (stored, and on Anthropic's wire in a recording), an encrypted thinking block's data,
 * a picture's base64 (stored, and Anthropic's `source`).
 */
const opaqueKey: Readonly<Record<string, string>> = { reasoning: "signature", thinking: "signature", redacted_thinking: "data", image: "data", base64: "data" };

/** Replaces the secrets in text and counts what it replaced, by kind (never keeping a value). */
export class SecretRedactor {
  readonly counts = new Map<string, number>();
  private readonly values: ReadonlyArray<{ kind: string; value: string }>;

  /**
   * `env`: the exporting process's environment; the value of every variable named like a secret
   * (the rule that keeps them from the model's commands) is a secret wherever it appears.
   */
  constructor(env: Record<string, string | undefined> = {}) {
    this.values = Object.entries(env)
      .flatMap(([name, value]) => (value !== undefined && value.trim().length >= shortestSecretValue && isSecretVariable(name, value) ? [{ kind: `env:${name}`, value: value.trim() }] : []))
      // The longest first, so a value that contains another is replaced whole.
      .sort((a, b) => b.value.length - a.value.length);
  }

  get total(): number {
    let sum = 0;
    for (const n of this.counts.values()) sum += n;
    return sum;
  }

  redact(text: string): string {
    let out = text;
    for (const { kind, value } of this.values) {
      if (!out.includes(value)) continue;
      const parts = out.split(value);
      this.count(kind, parts.length - 1);
      out = parts.join(redactionMark(kind));
    }
    for (const { kind, pattern } of secretShapes) {
      out = out.replace(pattern, () => {
        this.count(kind, 1);
        return redactionMark(kind);
      });
    }
    out = out.replace(urlPassword, (_, before: string, _password: string, at: string) => {
      this.count("url-password", 1);
      return `${before}${redactionMark("url-password")}${at}`;
    });
    return out.replace(bearerToken, (_, bearer: string) => {
      this.count("bearer-token", 1);
      return `${bearer}${redactionMark("bearer-token")}`;
    });
  }

  /**
   * A copy of a JSON value with every string (and key) redacted but two kinds of opaque data a
   * pattern could only damage: a thinking block's `signature` (the provider's proof, checked byte
   * for byte) and a picture's base64 `data`. Only in those blocks: a `signature` anywhere else (a
   * tool call's input, which the model writes) is text like any other.
   */
  redactJson<T>(value: T): T {
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === "string") return this.redact(value);
    if (Array.isArray(value)) return value.map((item) => this.walk(item));
    if (value !== null && typeof value === "object") {
      const opaque = opaqueKey[String((value as { type?: unknown }).type)];
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k === opaque ? k : this.redact(k), k === opaque ? v : this.walk(v)]));
    }
    return value;
  }

  private count(kind: string, n: number): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + n);
  }
}
