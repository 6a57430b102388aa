import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { UsageError } from "@cairn/host/usage-error";

/**
 * The fleet's secret: `fleet add` signs each job with it and a worker runs only jobs whose signature
 * it can check (job-signature.ts), so writing to Redis is not enough to give a worker an order.
 *
 * It comes from CAIRN_FLEET_SECRET, else from CAIRN_HOME/fleet-secret (mode 600), made on first use
 * so that `fleet add` and `fleet worker` on one machine agree with no step of the person's. Neither
 * is readable by a command the agent runs: the sandbox drops variables named like secrets and
 * covers this file even when the workspace is inside CAIRN_HOME (a worker's checkouts are); the
 * child `cairn run` of a job does not get the variable at all (child-run.ts).
 */
export const fleetSecretVariable = "CAIRN_FLEET_SECRET";
export const fleetSecretFileName = "fleet-secret";

/** Shorter than this is a secret someone typed, or a file the sandbox emptied: not one to sign with. */
const minimumLength = 32;

export type FleetSecret = {
  value: string;
  /** Where it came from, for messages: the variable's name or the file's path. */
  source: string;
  /** A short, harmless name for it, to compare machines by ("this worker's secret is 3f9a0c1e"). */
  fingerprint: string;
  /** True when this call made the file. */
  created: boolean;
};

export const fleetSecretFile = (home: string): string => path.join(home, fleetSecretFileName);

const howToShare = `run cairn fleet secret on the machine that adds jobs and give every worker the same secret (${fleetSecretVariable}, or the file CAIRN_HOME/${fleetSecretFileName} with mode 600)`;

function fingerprintOf(value: string): string {
  return createHash("sha256").update(`cairn fleet secret\0${value}`).digest("hex").slice(0, 8);
}

function checked(value: string, source: string, created = false): FleetSecret {
  if (value.length < minimumLength) throw new UsageError(`The fleet secret in ${source} is shorter than ${minimumLength} characters; ${howToShare}.`);
  return { value, source, fingerprint: fingerprintOf(value), created };
}

/** The secret of this machine, made in CAIRN_HOME when there is none yet. */
export function fleetSecret(env: Record<string, string | undefined>, home: string): FleetSecret {
  const fromEnv = env[fleetSecretVariable]?.trim();
  if (fromEnv) return checked(fromEnv, fleetSecretVariable);
  const file = fleetSecretFile(home);
  try {
    mkdirSync(home, { recursive: true });
    // "wx": of two processes making it at once, one writes and the other reads what it wrote.
    writeFileSync(file, `${randomBytes(32).toString("hex")}\n`, { flag: "wx", mode: 0o600 });
    return checked(readSecretFile(file), file, true);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot make the fleet secret ${file}: ${(error as Error).message.split("\n")[0]}; set ${fleetSecretVariable} instead.`);
    }
  }
  return checked(readSecretFile(file), file);
}

function readSecretFile(file: string): string {
  let text: string;
  try {
    // Others reading it could sign jobs: like ssh with a private key, refuse a file they can read.
    if ((statSync(file).mode & 0o077) !== 0) throw new UsageError(`${file} can be read by other users; chmod 600 it, or make a new secret with cairn fleet secret --new.`);
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read the fleet secret ${file}: ${(error as Error).message.split("\n")[0]}; ${howToShare}.`);
  }
  return text.trim();
}

/** Replaces the file's secret with a new one (jobs signed with the old one are refused from now on). */
export function newFleetSecret(env: Record<string, string | undefined>, home: string): FleetSecret {
  if (env[fleetSecretVariable]?.trim()) throw new UsageError(`The fleet secret here comes from ${fleetSecretVariable}; change it there (and on every machine of the fleet).`);
  const file = fleetSecretFile(home);
  mkdirSync(home, { recursive: true });
  writeFileSync(file, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // an older file keeps its mode when written over
  return checked(readSecretFile(file), file, true);
}

/** The environment without the fleet's secret: what a job's run, and anything it starts, gets. */
export function withoutFleetSecret(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { [fleetSecretVariable]: _secret, ...rest } = env;
  return rest;
}

export const fleetSecretHelp = `Usage: cairn fleet secret [--new]

Prints this machine's fleet secret (making it in CAIRN_HOME/${fleetSecretFileName} if there is none).
cairn fleet add signs every job with it, and a worker runs only jobs signed with its own: whoever
can write to Redis, but does not have the secret, cannot give a worker a job.

On one machine, add and worker share CAIRN_HOME and so the secret: nothing to do. For workers on
other machines, give each the same secret: ${fleetSecretVariable}=<secret> in its environment, or the
file CAIRN_HOME/${fleetSecretFileName} (mode 600). Commands the agent runs cannot read either.

  --new    replace the secret (jobs signed with the old one are refused; give every machine the new one)`;
