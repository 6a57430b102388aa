export {
  BrowserSession,
  defaultBrowserTiming,
  defaultViewport,
  type ActionFailure,
  type ActionOptions,
  type ActionResult,
  type BrowserSessionOptions,
  type BrowserTiming,
  type PageView,
  type Screenshot,
  type ScreenshotFormat,
  type Viewport,
} from "./browser-session.js";
export { gateFileRequests, type FileAnswer, type FileGate } from "./file-requests.js";
export { chromiumArgs, Chromium, startChromium, type BrowserNetwork, type ChromiumLaunch, type StartedChromium } from "./chromium-process.js";
export { chromiumNames, commonChromiumLocations, findChromium, noChromiumMessage, type ChromiumSearch, type FoundChromium } from "./find-chromium.js";
export { defaultPageLogLimits, type PageLogLimits } from "./page-log.js";
export { maxPageTextChars } from "./page-facts.js";
export { browserFor, closeBrowserFor, useBrowser } from "./session-registry.js";
