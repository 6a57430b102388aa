import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { writeFileAtomicSync } from "../disk/atomic-write.js";
import { realOrResolved } from "../disk/real-path.js";

/**
 * The person's trust in a workspace's config, in CAIRN_HOME/trust.json: one record per file, keyed
 * by the workspace's real path and the file, holding the digest (see digest.ts) of the content that
 * was shown to them. A file whose digest differs from its record is not trusted: a change needs
 * trust again.
 */
export type TrustRecord = {
  /** The workspace's real path. */
  workspace: string;
  /** The file, absolute (inside the workspace). */
  file: string;
  /** The digest of what the person trusted: the file's text and the workspace files its commands name. */
  sha256: string;
  trustedAt: string;
};

const recordSchema = z.object({ workspace: z.string(), file: z.string(), sha256: z.string(), trustedAt: z.string() });
const fileSchema = z.object({ version: z.literal(1), trusted: z.array(z.unknown()) });

export const trustFile = (home: string): string => path.join(home, "trust.json");

/** The workspace as trust records name it: its real path (a symlinked checkout is the same workspace). */
export function workspaceKey(cwd: string): string {
  return realOrResolved(cwd);
}

/** Every record. A missing, unreadable or malformed file means none: the safe reading. */
export function loadTrust(home: string): TrustRecord[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(trustFile(home), "utf8"));
  } catch {
    return [];
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) return [];
  return parsed.data.trusted.flatMap((r) => {
    const record = recordSchema.safeParse(r);
    return record.success ? [record.data] : [];
  });
}

/** The record of this workspace's file, if the person ever trusted a version of it. */
export function trustRecord(home: string, cwd: string, file: string): TrustRecord | undefined {
  const workspace = workspaceKey(cwd);
  return loadTrust(home).find((r) => r.workspace === workspace && r.file === file);
}

/** True when the person trusted exactly this content (its digest) of this workspace's file. */
export function isTrusted(home: string, cwd: string, file: string, digest: string): boolean {
  return trustRecord(home, cwd, file)?.sha256 === digest;
}

/** Records trust in this content (its digest) of the file, replacing a record of an older version. */
export function trustDigest(home: string, cwd: string, file: string, digest: string): TrustRecord {
  const record: TrustRecord = { workspace: workspaceKey(cwd), file, sha256: digest, trustedAt: new Date().toISOString() };
  save(home, [...loadTrust(home).filter((r) => !(r.workspace === record.workspace && r.file === file)), record]);
  return record;
}

/** Forgets every record of the workspace; returns what was removed. */
export function revokeTrust(home: string, cwd: string): TrustRecord[] {
  const workspace = workspaceKey(cwd);
  const all = loadTrust(home);
  const removed = all.filter((r) => r.workspace === workspace);
  if (removed.length > 0) save(home, all.filter((r) => r.workspace !== workspace));
  return removed;
}

function save(home: string, records: TrustRecord[]): void {
  mkdirSync(home, { recursive: true });
  writeFileAtomicSync(trustFile(home), `${JSON.stringify({ version: 1, trusted: records }, null, 2)}\n`);
}
