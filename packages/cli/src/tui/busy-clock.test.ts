import { createElement } from "react";
import { renderToString } from "ink";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { InteractiveHost } from "./interactive-host.js";
import { LiveRegion } from "./live-region.js";
import { SessionView } from "./session-view.js";
import { ThemeContext, themeFor } from "./theme.js";
import { busyElapsedMs } from "./view-types.js";

const request = { tool_use_id: "1", tool: "execute_command", category: "all-commands" as const, summary: "run ls", suggested_rule: "execute_command(x *)", input: { command: "ls" } };

beforeEach(() => vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

function busyLine(view: SessionView): string {
  const live = view.getSnapshot().live;
  const region = createElement(LiveRegion, { live, width: 80, maxRows: 20, maxTextRows: 10, expanded: false });
  return renderToString(createElement(ThemeContext.Provider, { value: themeFor({ NO_COLOR: "1" }) }, region), { columns: 80 });
}

describe("the working clock", () => {
  it("stops while the person is asked to approve, and goes on from there after the answer", async () => {
    const view = new SessionView({ frameMs: 0 });
    const host = new InteractiveHost(view);
    view.live.busy = { since: Date.now(), label: "working" };
    view.changed();
    view.flush();
    vi.advanceTimersByTime(5_000);
    expect(busyLine(view)).toContain("working 5s");

    const answer = host.approve(request, new AbortController().signal);
    view.flush();
    vi.advanceTimersByTime(30_000);
    expect(busyLine(view)).toContain("working 5s (paused while you decide)");

    const prompt = view.prompt;
    if (prompt?.kind !== "approval") throw new Error("no approval prompt");
    prompt.resolve({ approved: true });
    await answer;
    view.flush();
    vi.advanceTimersByTime(2_000);
    expect(busyLine(view)).toContain("working 7s");
    expect(busyLine(view)).not.toContain("paused");
  });

  it("leaves out every wait, the one going on too", () => {
    const busy = { since: 0, label: "working", pausedMs: 4_000, pausedAt: 10_000 };
    expect(busyElapsedMs(busy, 25_000)).toBe(6_000);
    expect(busyElapsedMs({ since: 0, label: "working" }, 25_000)).toBe(25_000);
  });
});
