import type { Page } from "puppeteer-core";

export type PageFacts = {
  title: string;
  scroll: { y: number; height: number };
  /** The page's visible text, when asked for. */
  text?: string;
};

/** The most visible text returned for a model that cannot see screenshots. */
export const maxPageTextChars = 10_000;

// An expression, not a function: core compiles without the DOM's types.
const FACTS = `(() => {
  const root = document.scrollingElement || document.documentElement;
  return { title: document.title, y: Math.round(window.scrollY), height: root ? root.scrollHeight : 0 };
})()`;
const TEXT = "document.body ? document.body.innerText : ''";

/** Title, scroll position and (optionally) visible text of the page; defaults when its document is gone mid-navigation. */
export async function readPageFacts(page: Page, withText: boolean): Promise<PageFacts> {
  const raw: unknown = await page.evaluate(FACTS).catch(() => undefined);
  const facts = isRecord(raw) ? raw : {};
  const result: PageFacts = {
    title: typeof facts.title === "string" ? facts.title : "",
    scroll: { y: numberOr(facts.y, 0), height: numberOr(facts.height, 0) },
  };
  if (!withText) return result;
  const text: unknown = await page.evaluate(TEXT).catch(() => "");
  const clean = typeof text === "string" ? text.replace(/\n{3,}/g, "\n\n").trim() : "";
  result.text = clean.length <= maxPageTextChars ? clean : `${clean.slice(0, maxPageTextChars)}\n[The page's text is cut here, at ${maxPageTextChars} of ${clean.length} characters.]`;
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}
