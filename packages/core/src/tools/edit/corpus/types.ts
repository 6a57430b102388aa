/** One edit of the corpus: a file, a diff, and the file it must become or the error it must give. */
export type EditCase = {
  name: string;
  file: string;
  diff: string;
  /** The exact content after the edit, or the error: every string/pattern must appear in the message. */
  expect: string | { error: ReadonlyArray<string | RegExp> };
};

const lines = (text: string): string[] => (text === "" ? [] : text.split("\n"));

/** One block in the standard markers; "" is an empty part, otherwise parts are "\n"-separated lines. */
export function block(search: string, replace: string): string {
  return ["------- SEARCH", ...lines(search), "=======", ...lines(replace), "+++++++ REPLACE"].join("\n");
}

export function blocks(...parts: ReadonlyArray<readonly [string, string]>): string {
  return parts.map(([search, replace]) => block(search, replace)).join("\n");
}

/** `count` numbered lines "line 1" .. "line N", each with a newline. */
export function numbered(count: number, label = "line"): string {
  return Array.from({ length: count }, (_, i) => `${label} ${i + 1}\n`).join("");
}
