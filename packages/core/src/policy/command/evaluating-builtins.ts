import { staticValue, type Word } from "./words.js";

/**
 * Builtins that evaluate a name they are given: a name such as `a[$(cmd)]` has its subscript
 * evaluated as arithmetic, which runs cmd (`printf -v 'a[$(id)]' 1`, `read 'a[$(id)]'`,
 * `declare 'a[$(id)]=1'`, `unset 'a[$(id)]'`, `[ -v 'a[$(id)]' ]`), and a few that run text as
 * code (let, mapfile -C, compgen -W, enable -f, fc). Each is allowed only in forms where every
 * name is a plain, fixed identifier; otherwise the command is opaque.
 *
 * Returns what is wrong, for the model and the person, or undefined when the form is plain.
 */
export function evaluatingBuiltin(words: readonly Word[]): string | undefined {
  const name = staticValue(words[0]);
  if (name === undefined) return undefined;
  if (name === "test" || name === "[") return test(words.slice(1), name);
  const args = words.slice(1).map(namePart);
  const check = builtins[name];
  return check?.(args, name);
}

/**
 * The word's value, or for NAME=VALUE with a computed value, the fixed `NAME=` part: only the
 * name is evaluated (export FOO=$(pwd) is plain).
 */
function namePart(word: Word): string | undefined {
  const value = staticValue(word);
  if (value !== undefined) return value;
  const first = word.pieces[0];
  if (first?.kind !== "lit") return undefined;
  const eq = first.text.indexOf("=");
  return eq > 0 && !first.text.startsWith("-") ? first.text.slice(0, eq + 1) : undefined;
}

type Check = (args: (string | undefined)[], name: string) => string | undefined;

const plainName = /^[A-Za-z_][A-Za-z0-9_]*$/;

const computed = (name: string): string => `an argument of ${name} is computed at run time, and ${name} evaluates the names it is given (a name such as a[$(cmd)] runs cmd)`;
const notPlain = (name: string, value: string): string => `${name} is given "${value}", which is not a plain variable name; ${name} evaluates a subscript such as a[$(cmd)] as code`;
const always = (reason: string): Check => (_args, name) => `${name} ${reason}`;

/** declare, typeset, local, export, readonly: options, then NAME or NAME=VALUE. */
function declaration(args: (string | undefined)[], name: string): string | undefined {
  for (const arg of args) {
    if (arg === undefined) return computed(name);
    if (/^[-+]/.test(arg) && !arg.includes("=")) {
      if (arg.includes("i")) return `${name} ${arg} makes assignments arithmetic, which evaluates names in the value`;
      if (arg.includes("n") && name !== "export") return `${name} ${arg} makes a reference to another name, which is evaluated when used`;
      continue;
    }
    const target = arg.includes("=") ? arg.slice(0, arg.indexOf("=")).replace(/\+$/, "") : arg;
    if (!plainName.test(target)) return notPlain(name, target);
  }
  return undefined;
}

/** Reads options (letters in `withValue` take a value) and requires every name to be plain. */
function namesAfterOptions(withValue: string, nameOptions: string, refused = ""): Check {
  return (args, name) => {
    let optionsDone = false;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      if (arg === undefined) return computed(name);
      if (!optionsDone && arg === "--") {
        optionsDone = true;
        continue;
      }
      if (!optionsDone && arg.startsWith("-") && arg.length > 1) {
        for (let j = 1; j < arg.length; j++) {
          const c = arg[j] ?? "";
          if (refused.includes(c)) return `${name} -${c} runs code`;
          if (!withValue.includes(c)) continue;
          const value = j + 1 < arg.length ? arg.slice(j + 1) : args[++i];
          if (value === undefined) return computed(name);
          if (nameOptions.includes(c) && !plainName.test(value)) return notPlain(name, value);
          break;
        }
        continue;
      }
      optionsDone = true;
      if (!plainName.test(arg)) return notPlain(name, arg);
    }
    return undefined;
  };
}

function printf(args: (string | undefined)[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === undefined) return computed(name); // a computed first word may be -v a[$(cmd)]
    if (arg === "--") return undefined;
    if (!arg.startsWith("-v")) return undefined; // the format: no more options
    const target = arg.length > 2 ? arg.slice(2) : args[++i];
    if (target === undefined) return computed(name);
    if (!plainName.test(target)) return notPlain(name, target);
  }
  return undefined;
}

function unset(args: (string | undefined)[], name: string): string | undefined {
  for (const arg of args) {
    if (arg === undefined) return computed(name);
    if (arg.startsWith("-")) continue;
    if (!plainName.test(arg)) return notPlain(name, arg);
  }
  return undefined;
}

const unaryTests = new Set(["-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x", "-G", "-L", "-N", "-O", "-S", "-z", "-n", "-o"]);
const binaryTests = new Set(["=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"]);

/**
 * `[ -v NAME ]`, `test -R NAME`: the name is evaluated. Words are split after expansion, so a
 * computed word may become -v itself: computed words are fine only quoted, as the operand of a
 * one-, two- or three-word test.
 */
function test(words: readonly Word[], name: string): string | undefined {
  const list = name === "[" && staticValue(words.at(-1)) === "]" ? words.slice(0, -1) : [...words];
  const args = list.map(staticValue);
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== "-v" && args[i] !== "-R") continue;
    const target = args[i + 1];
    if (target === undefined) return computed(name);
    if (!plainName.test(target)) return notPlain(`${name} ${args[i] ?? ""}`, target);
  }
  if (args.every((a) => a !== undefined)) return undefined;
  const rest = args[0] === "!" ? list.slice(1) : list;
  const values = rest.map(staticValue);
  const operand = (w: Word | undefined): boolean => w !== undefined && (staticValue(w) !== undefined || w.source.startsWith('"'));
  const plain =
    (rest.length === 1 && operand(rest[0])) ||
    (rest.length === 2 && unaryTests.has(values[0] ?? "") && operand(rest[1])) ||
    (rest.length === 3 && binaryTests.has(values[1] ?? "") && operand(rest[0]) && operand(rest[2]));
  return plain ? undefined : `${name} has computed words that word splitting could turn into a -v test, which evaluates a name such as a[$(cmd)]; quote them`;
}

function getopts(args: (string | undefined)[], name: string): string | undefined {
  if (args.some((a) => a === undefined)) return computed(name);
  const target = args[1];
  return target === undefined || plainName.test(target) ? undefined : notPlain(name, target);
}

function hash(args: (string | undefined)[], name: string): string | undefined {
  if (args.some((a) => a === undefined)) return computed(name);
  return args.some((a) => a !== undefined && /^-[a-z]*p/.test(a)) ? `${name} -p makes a command name run another program` : undefined;
}

const builtins: Record<string, Check> = {
  let: always("evaluates arithmetic, which evaluates the names and subscripts in it"),
  declare: declaration,
  typeset: declaration,
  local: declaration,
  export: declaration,
  readonly: declaration,
  unset,
  printf,
  read: namesAfterOptions("adinNptu", "a"),
  mapfile: namesAfterOptions("dnOsuCc", "", "Cc"),
  readarray: namesAfterOptions("dnOsuCc", "", "Cc"),
  wait: namesAfterOptions("p", "p"),
  getopts,
  hash,
  compgen: always("expands word lists and runs functions or commands it is given (-W, -F, -C)"),
  complete: always("registers functions or commands to run (-F, -C)"),
  enable: always("loads builtins from shared libraries or turns builtins off"),
  fc: always("runs commands from the shell history"),
  bind: always("binds keys to commands"),
};
