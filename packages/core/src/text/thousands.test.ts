import { expect, it } from "vitest";
import { thousands } from "./thousands.js";

it("groups a count's thousands as toLocaleString('en-US') does", () => {
  for (const n of [0, 7, 999, 1000, 12345, 999999, 1000000, 123456789, -1, -1234, -1234567, Number.MAX_SAFE_INTEGER, 1.5, 1234.5678, 1e21]) {
    expect(thousands(n), String(n)).toBe(n.toLocaleString("en-US"));
  }
});
