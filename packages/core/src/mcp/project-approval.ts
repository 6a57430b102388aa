import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { writeFileAtomicSync } from "../storage/atomic-write.js";
import { isPlainObject } from "./config.js";

/**
 * A project's .mcp.json is code someone else may have committed: each of its servers starts only
 * after the person approved that exact entry for that project. Approvals live in
 * CAIRN_HOME/mcp_approvals.json, keyed by project path + server name + a hash of the entry as
 * written, so editing the entry asks again.
 */
export type ProjectApproval = { project: string; server: string; hash: string; approvedAt: string };

export const approvalsFile = (home: string): string => path.join(home, "mcp_approvals.json");

/** A stable hash of an entry as written: key order does not matter, any value change does. */
export function configHash(raw: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(raw)).digest("hex")}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The stored approvals. A missing or unreadable file means none (the safe reading). */
export function loadApprovals(home: string): ProjectApproval[] {
  const file = approvalsFile(home);
  if (!existsSync(file)) return [];
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    const list = isPlainObject(parsed) && Array.isArray(parsed.approvals) ? parsed.approvals : [];
    return list.filter(
      (a): a is ProjectApproval =>
        isPlainObject(a) && typeof a.project === "string" && typeof a.server === "string" && typeof a.hash === "string",
    );
  } catch {
    return [];
  }
}

export function isProjectServerApproved(home: string, project: string, server: string, raw: unknown): boolean {
  const hash = configHash(raw);
  return loadApprovals(home).some((a) => a.project === project && a.server === server && a.hash === hash);
}

/** Approves this entry of this project's server, replacing an approval of an older version of it. */
export function approveProjectServer(home: string, project: string, server: string, raw: unknown): ProjectApproval {
  const approval: ProjectApproval = { project, server, hash: configHash(raw), approvedAt: new Date().toISOString() };
  const kept = loadApprovals(home).filter((a) => !(a.project === project && a.server === server));
  mkdirSync(home, { recursive: true });
  writeFileAtomicSync(approvalsFile(home), `${JSON.stringify({ version: 1, approvals: [...kept, approval] }, null, 2)}\n`);
  return approval;
}
