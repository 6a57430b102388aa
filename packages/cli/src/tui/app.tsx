/** @jsxRuntime automatic */
import { Box, Static, Text, useApp, useStdout, type Key } from "ink";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { FileIndex } from "@cairn/host/completion";
import { HistoryItemView } from "./history-item.js";
import { InputBox } from "./input-box.js";
import { KeyRouter } from "./key-router.js";
import { inputMaxLines, promptRows } from "./layout.js";
import { LiveRegion } from "./live-region.js";
import { imageChip } from "./pasted-image.js";
import { PromptView } from "./prompts.js";
import type { SessionController } from "./session-controller.js";
import { liveTextRows } from "./session-view.js";
import { StatusLine } from "./status-line.js";
import { ThemeContext, useTheme, type Theme } from "./theme.js";
import type { Prompt } from "./view-types.js";

/**
 * The interactive session on screen: finished history printed once above (ink's <Static>, never
 * redrawn), then the live part (streaming reply, running cards), the prompt or input, and the
 * status line. Only the live part re-renders, at most once per frame while tokens stream.
 */
export function App({ session, theme, files }: { session: SessionController; theme: Theme; files?: FileIndex }) {
  return (
    <ThemeContext.Provider value={theme}>
      <Session session={session} {...(files ? { files } : {})} />
    </ThemeContext.Provider>
  );
}

function Session({ session, files }: { session: SessionController; files?: FileIndex }) {
  const { view } = session;
  const theme = useTheme();
  const snapshot = useSyncExternalStore(view.subscribe, view.getSnapshot);
  const { stdout } = useStdout();
  const { exit } = useApp();
  const [inputHeight, setInputHeight] = useState(3);
  const promptIds = useRef(new WeakMap<Prompt, number>());
  const nextPromptId = useRef(0);

  useEffect(() => {
    const resize = () => view.setSize(stdout.columns || 80, stdout.rows || 24);
    resize();
    stdout.on("resize", resize);
    return () => {
      stdout.off("resize", resize);
    };
  }, [stdout, view]);
  useEffect(() => session.onExit(() => exit()), [session, exit]);
  useEffect(() => view.releasePrinted(snapshot.history.length), [snapshot.history, view]);

  const before = (input: string, key: Key): boolean => {
    if (key.ctrl && input === "c") {
      session.interrupt();
      return true;
    }
    if (key.tab && key.shift) {
      session.toggleMode();
      return true;
    }
    if (key.ctrl && input === "o") {
      if (view.live.tools.some((card) => card.kind === "command")) {
        view.expanded = !view.expanded;
        view.changed();
      } else if (view.lastFolded) {
        view.add({ kind: "info", title: `Full ${view.lastFolded.title}`, lines: view.lastFolded.text.replace(/\n$/, "").split("\n") });
      } else {
        view.setHint("Nothing folded to show yet.");
      }
      return true;
    }
    return false;
  };
  const after = (input: string, key: Key): void => {
    if (key.escape) session.interrupt();
    // Ctrl-D on an empty input leaves, as in a shell.
    else if (key.ctrl && input === "d" && !session.running) void session.exit();
  };

  const { prompt, live, size } = snapshot;
  let promptId = 0;
  if (prompt) {
    if (!promptIds.current.has(prompt)) promptIds.current.set(prompt, nextPromptId.current++);
    promptId = promptIds.current.get(prompt)!;
  }
  // What is left for the live region once everything under it is counted, with one row spare.
  const below = 1 + (snapshot.hint ? 1 : 0) + (snapshot.queued.length > 0 ? 1 : 0) + (snapshot.attached.length > 0 ? 1 : 0) + inputHeight + promptRows(prompt, size.columns);
  const liveRows = Math.max(0, size.rows - below - 1);
  return (
    <KeyRouter before={before} after={after}>
      <Static items={snapshot.history}>{(item) => <HistoryItemView key={item.key} item={item} width={size.columns} />}</Static>
      {snapshot.closing ? null : (
        <Box flexDirection="column" width={size.columns}>
          <LiveRegion live={live} width={size.columns} maxRows={liveRows} maxTextRows={liveTextRows(size.rows)} expanded={snapshot.expanded} />
          {prompt ? <PromptView prompt={prompt} id={promptId} /> : null}
          {snapshot.attached.length > 0 ? (
            <Text wrap="truncate-end">
              <Text color={theme.accent}>{snapshot.attached.map(imageChip).join(" ")}</Text>
              <Text dimColor>{" goes with your next message · Backspace on an empty input takes it off"}</Text>
            </Text>
          ) : null}
          {/* Kept mounted under a prompt, so a message typed ahead is not lost. */}
          <InputBox
            onSubmit={(text) => void session.submit(text)}
            onPaste={(text) => session.pasted(text)}
            onEmptyBackspace={() => session.detachLast()}
            typedAhead={snapshot.typedAhead}
            busy={live.busy !== undefined}
            commands={session.commands}
            active={!prompt}
            maxLines={inputMaxLines(size.rows)}
            width={size.columns}
            onRows={setInputHeight}
            {...(files ? { files } : {})}
          />
          {snapshot.queued.length > 0 ? <Text dimColor wrap="truncate-end">{`queued: ${snapshot.queued.join(" · ")}`}</Text> : null}
          {snapshot.hint ? (
            <Text color={theme.warning} wrap="truncate-end">
              {snapshot.hint}
            </Text>
          ) : null}
          <StatusLine status={snapshot.status} width={size.columns} />
        </Box>
      )}
    </KeyRouter>
  );
}
