import { createRoot } from "react-dom/client";
import { adoptLinkToken } from "./access-token.ts";
import { App } from "./app.tsx";
import { EventStore } from "./event-store.ts";
import "./styles.css";

// Before anything reads the address bar: the token leaves it for this tab's storage.
adoptLinkToken();
const store = new EventStore();
store.connect();
// The bench reads how many events the page has applied.
(window as unknown as { cairnStore: EventStore }).cairnStore = store;
createRoot(document.getElementById("root")!).render(<App store={store} />);
