import { expect, it } from "vitest";
import { EventPresenter } from "./present-events.js";
import { SessionView } from "./session-view.js";

it("the focus chain shows as one line each time it changes: done/total and the next open step", () => {
  const view = new SessionView({ frameMs: 0, columns: 80, rows: 40 });
  const presenter = new EventPresenter(view);
  presenter.apply({ type: "task_progress", items: [{ text: "Read the parser", done: true }, { text: "Fix the bug", done: false }, { text: "Run tests", done: false }] });
  presenter.apply({ type: "task_progress", items: [{ text: "Read the parser", done: true }, { text: "Fix the bug", done: true }, { text: "Run tests", done: true }] });
  view.flush();
  const lines = view.getSnapshot().history.flatMap((item) => (item.kind === "notice" ? [item.text] : []));
  expect(lines).toEqual(["Progress 1/3 · next: Fix the bug", "Progress 3/3 · all done"]);
});
