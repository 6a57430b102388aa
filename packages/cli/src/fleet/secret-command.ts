import { cairnHome } from "@cairn/core/cairn-home";
import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";
import { fleetSecret, fleetSecretHelp, fleetSecretVariable, newFleetSecret } from "./fleet-secret.js";

/** `cairn fleet secret [--new]`: the secret on stdout (to copy to other machines), what to do with it on stderr. */
export async function secretCommand(argv: string[], io: Io): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout(`${fleetSecretHelp}\n`);
    return 0;
  }
  const unknown = argv.find((a) => a !== "--new");
  if (unknown !== undefined) throw new UsageError(`Unknown argument "${unknown}" for cairn fleet secret (see cairn fleet secret --help).`);
  const home = cairnHome(io.env);
  const secret = argv.includes("--new") ? newFleetSecret(io.env, home) : fleetSecret(io.env, home);
  io.stdout(`${secret.value}\n`);
  io.stderr(
    `${secret.created ? "Made" : "This is"} the fleet secret ${secret.fingerprint} (${secret.source}). Give every machine that adds or works jobs the same one: ${fleetSecretVariable}=<it> in its environment, or the file CAIRN_HOME/fleet-secret (mode 600).\n`,
  );
  return 0;
}
