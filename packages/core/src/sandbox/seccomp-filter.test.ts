import { describe, expect, it } from "vitest";
import { seccompProgram } from "./seccomp-filter.js";

/**
 * Runs the filter as the kernel would on one system call, for the ABIs this machine cannot enter
 * by itself (the end-to-end attack covers the native one on the real kernel).
 */
function verdict(arch: number, nr: number, arg1 = 0n): "allow" | "eperm" {
  const program = seccompProgram();
  const data = Buffer.alloc(64);
  data.writeUInt32LE(nr >>> 0, 0);
  data.writeUInt32LE(arch >>> 0, 4);
  data.writeBigUInt64LE(arg1, 24);
  let a = 0;
  for (let pc = 0; pc < program.length / 8; ) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) a = data.readUInt32LE(k);
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x35) pc += a >= k ? jt : jf;
    else if (code === 0x06) {
      if (k === 0x7fff0000) return "allow";
      if (k === 0x00050001) return "eperm";
      throw new Error(`unexpected return ${k.toString(16)}`);
    } else throw new Error(`unexpected opcode ${code.toString(16)}`);
    pc += 1;
  }
  throw new Error("fell off the end");
}

const X86_64 = 0xc000003e;
const I386 = 0x40000003;
const AARCH64 = 0xc00000b7;
const ARM = 0x40000028;

describe("seccomp filter", () => {
  it.each([
    ["x86_64", X86_64, [248, 249, 250], 16, [0, 1, 2, 59, 56, 435]],
    ["x32", X86_64, [248, 249, 250].map((n) => n | 0x40000000), 514 | 0x40000000, [0x40000000, 0x40000001]],
    ["i386", I386, [286, 287, 288], 54, [3, 4, 11, 120]],
    ["aarch64", AARCH64, [217, 218, 219], 29, [56, 63, 64, 220, 221]],
    ["arm", ARM, [309, 310, 311], 54, [3, 4, 11, 120]],
  ])("%s: the keyring calls and TIOCSTI/TIOCLINUX get EPERM; other calls and ioctls pass", (_name, arch, keyring, ioctl, others) => {
    for (const nr of keyring) expect(verdict(arch, nr)).toBe("eperm");
    expect(verdict(arch, ioctl, 0x5412n)).toBe("eperm");
    expect(verdict(arch, ioctl, 0x541cn)).toBe("eperm");
    // The kernel reads the request as 32 bits: high bits set do not slip past.
    expect(verdict(arch, ioctl, 0xffffffff_00005412n)).toBe("eperm");
    expect(verdict(arch, ioctl, 0x5401n)).toBe("allow"); // TCGETS
    for (const nr of others) expect(verdict(arch, nr)).toBe("allow");
  });

  it("refuses every call of an ABI it does not know", () => {
    expect(verdict(0xc00000f3 /* riscv64 */, 0)).toBe("eperm");
  });
});
