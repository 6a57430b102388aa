import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * The seccomp filter every sandboxed command runs under, as the classic-BPF program bubblewrap
 * loads with `--seccomp FD`. bubblewrap isolates mounts, PIDs and (optionally) the network, but
 * not everything a process can reach through a system call; the filter closes what matters here,
 * with EPERM (a program sees "Operation not permitted" and goes on), as container runtimes do:
 *
 * - the kernel keyring (`keyctl`, `add_key`, `request_key`): keys are kept per user and per
 *   session, not per namespace, so without it a command reads the person's user and session
 *   keyrings (Kerberos tickets, cifs/nfs passwords, keys a desktop keeps there);
 * - typing into a terminal (`ioctl` TIOCSTI, TIOCLINUX): a process that still holds a terminal
 *   could push a command into the person's shell, to run outside the sandbox when the agent ends.
 *
 * Nothing else is refused: node, npm, git, python and compilers use none of these. Other calls
 * Docker's default profile refuses (mount, setns, kexec, init_module, bpf, ...) need capabilities
 * a sandboxed command does not have.
 *
 * Every ABI the kernel of a supported machine runs is covered, since a 64-bit process can enter the
 * kernel through the 32-bit one (`int 0x80`) with other numbers: x86_64, its i386 and x32 ABIs;
 * aarch64 and its 32-bit arm ABI. An ABI the filter does not know is refused outright.
 */

const AUDIT_ARCH = { x86_64: 0xc000003e, i386: 0x40000003, aarch64: 0xc00000b7, arm: 0x40000028 } as const;
const X32_BIT = 0x40000000;

/** Syscall numbers per ABI: the keyring calls, and ioctl (whose request is checked). */
const TABLES: Record<keyof typeof AUDIT_ARCH, { keyring: number[]; ioctl: number }> = {
  x86_64: { keyring: [248, 249, 250], ioctl: 16 },
  i386: { keyring: [286, 287, 288], ioctl: 54 },
  aarch64: { keyring: [217, 218, 219], ioctl: 29 },
  arm: { keyring: [309, 310, 311], ioctl: 54 },
};
/** x32 numbers are the x86_64 ones with bit 30 set, except ioctl (514). */
const X32 = { keyring: [248, 249, 250].map((n) => n | X32_BIT), ioctl: 514 | X32_BIT };

const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;

// Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;
// struct seccomp_data: nr, arch, instruction_pointer, args[6] (64-bit each; the low half first on these little-endian machines).
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG1_LOW = 24;

type Insn = { code: number; jt: number; jf: number; k: number };
/** An instruction whose jumps name labels, resolved once the program is laid out. */
type Draft = { code: number; k: number; jt?: string; jf?: string } | { label: string };

/** The machines whose filter is built; elsewhere commands run without one (open-sandbox.ts says so). */
export function seccompSupported(arch: string = process.arch): boolean {
  return (arch === "x64" || arch === "arm64") && os.endianness() === "LE";
}

/**
 * The filter in a file bubblewrap can be handed (a shell opens it on a descriptor): under
 * CAIRN_HOME, which commands never see, named by its content and checked on every start; where
 * CAIRN_HOME cannot be written, in a private temp folder. Undefined where no filter is built.
 */
export function seccompFilterFile(cairnHome: string): string | undefined {
  if (!seccompSupported()) return undefined;
  const program = seccompProgram();
  const name = `seccomp-${createHash("sha256").update(program).digest("hex").slice(0, 16)}.bpf`;
  const file = path.join(cairnHome, "cache", name);
  try {
    if (readFileSync(file).equals(program)) return file;
  } catch {
    // not written yet
  }
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, program, { mode: 0o600 });
    renameSync(temp, file);
    return file;
  } catch {
    const fallback = path.join(mkdtempSync(path.join(os.tmpdir(), "cairn-seccomp-")), name);
    writeFileSync(fallback, program, { mode: 0o400 });
    return fallback;
  }
}

/** The filter as bytes (struct sock_filter[]), for bubblewrap to read from a file descriptor. */
export function seccompProgram(): Buffer {
  const draft: Draft[] = [
    { code: LD_W_ABS, k: OFFSET_ARCH },
    { code: JEQ_K, k: AUDIT_ARCH.x86_64, jt: "x86_64" },
    { code: JEQ_K, k: AUDIT_ARCH.i386, jt: "i386" },
    { code: JEQ_K, k: AUDIT_ARCH.aarch64, jt: "aarch64" },
    { code: JEQ_K, k: AUDIT_ARCH.arm, jt: "arm" },
    { code: RET_K, k: RET_EPERM },
    { label: "x86_64" },
    { code: LD_W_ABS, k: OFFSET_NR },
    { code: JGE_K, k: X32_BIT, jt: "x32" },
    ...checks(TABLES.x86_64),
    { label: "x32" },
    ...checks(X32),
    { label: "i386" },
    { code: LD_W_ABS, k: OFFSET_NR },
    ...checks(TABLES.i386),
    { label: "aarch64" },
    { code: LD_W_ABS, k: OFFSET_NR },
    ...checks(TABLES.aarch64),
    { label: "arm" },
    { code: LD_W_ABS, k: OFFSET_NR },
    ...checks(TABLES.arm),
    { label: "ioctl" },
    // The kernel reads ioctl's request as 32 bits, so only the low half is compared (a check of all
    // 64 bits is bypassed by setting the high ones).
    { code: LD_W_ABS, k: OFFSET_ARG1_LOW },
    { code: JEQ_K, k: TIOCSTI, jt: "deny" },
    { code: JEQ_K, k: TIOCLINUX, jt: "deny" },
    { code: RET_K, k: RET_ALLOW },
    { label: "deny" },
    { code: RET_K, k: RET_EPERM },
  ];
  return encode(resolve(draft));
}

/** With the syscall number loaded: refuse the keyring calls, check ioctl's request, allow the rest. */
function checks(table: { keyring: number[]; ioctl: number }): Draft[] {
  return [
    ...table.keyring.map((nr): Draft => ({ code: JEQ_K, k: nr, jt: "deny" })),
    { code: JEQ_K, k: table.ioctl, jt: "ioctl" },
    { code: RET_K, k: RET_ALLOW },
  ];
}

/** Labels to relative forward jumps (classic BPF only jumps forward, at most 255 instructions). */
function resolve(draft: Draft[]): Insn[] {
  const at = new Map<string, number>();
  let index = 0;
  for (const item of draft) {
    if ("label" in item) at.set(item.label, index);
    else index += 1;
  }
  const program: Insn[] = [];
  for (const item of draft) {
    if ("label" in item) continue;
    const here = program.length;
    const offset = (label: string | undefined) => {
      if (label === undefined) return 0;
      const target = at.get(label);
      if (target === undefined || target <= here || target - here - 1 > 255) throw new Error(`seccomp filter: bad jump to ${label}`);
      return target - here - 1;
    };
    program.push({ code: item.code, k: item.k, jt: offset(item.jt), jf: offset(item.jf) });
  }
  return program;
}

function encode(program: Insn[]): Buffer {
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((insn, i) => {
    bytes.writeUInt16LE(insn.code, i * 8);
    bytes.writeUInt8(insn.jt, i * 8 + 2);
    bytes.writeUInt8(insn.jf, i * 8 + 3);
    bytes.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return bytes;
}
