/**
 * A count with its thousands grouped as in English, "12,345": what toLocaleString("en-US") gives,
 * without its cost. The first use of Intl in a process loads ICU's data, ~15 ms of CPU a one-turn
 * task would pay for one number in its environment line. Numbers that are not safe integers keep
 * toLocaleString.
 */
export function thousands(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}
