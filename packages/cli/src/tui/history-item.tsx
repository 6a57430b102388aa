/** @jsxRuntime automatic */
import { Box, Text } from "ink";
import { PatchLines } from "./diff-view.js";
import { markdownLines, replyPartLines } from "./markdown-terminal.js";
import { historyCardSize, ProposalView, ToolCardView } from "./tool-card.js";
import { symbols, useTheme } from "./theme.js";
import type { HistoryItem } from "./view-types.js";

/** One finished item, as printed (once) into the scrollback. */
export function HistoryItemView({ item, width }: { item: HistoryItem; width: number }) {
  const theme = useTheme();
  switch (item.kind) {
    case "banner":
      return (
        <Box flexDirection="column">
          {item.lines.map((line, i) => (
            <Text key={i} dimColor={i > 0} bold={i === 0} wrap="truncate-end">
              {line}
            </Text>
          ))}
        </Box>
      );
    case "user":
      return (
        <Box marginTop={1}>
          <Text color={theme.accent} bold>
            {symbols.user}{" "}
          </Text>
          <Text bold>{item.text}</Text>
        </Box>
      );
    case "assistant":
      return <Text>{replyPartLines(item.text, item.fence, { width: Math.max(10, width - 2), colour: theme.accent !== undefined }).join("\n")}</Text>;
    case "reasoning":
      return (
        <Text dimColor wrap="truncate-end">
          {`${symbols.reasoning} reasoning, ${item.words} word${item.words === 1 ? "" : "s"} (folded; ctrl-o shows the latest)`}
        </Text>
      );
    case "tool":
      return <ToolCardView card={item.card} size={historyCardSize(width)} />;
    case "proposal":
      return <ProposalView card={item.card} />;
    case "notice":
      return item.level === "warning" ? (
        <Text color={theme.warning}>{`! ${item.text}`}</Text>
      ) : (
        <Text dimColor>{`${symbols.bullet} ${item.text}`}</Text>
      );
    case "error":
      return <Text color={theme.error}>{`${symbols.failed} ${item.text}`}</Text>;
    case "question":
      return (
        <Box flexDirection="column" marginTop={1}>
          <Text>
            <Text color={theme.accent} bold>
              ?{" "}
            </Text>
            {item.question}
          </Text>
          {item.options.map((option, i) => (
            <Text key={i} dimColor>{`  ${i + 1}. ${option}`}</Text>
          ))}
        </Box>
      );
    case "result": {
      const success = item.subtype === "success";
      const waiting = item.subtype === "needs_input";
      const stopped = item.subtype === "error_aborted";
      const symbol = success ? symbols.done : waiting ? "?" : stopped ? symbols.denied : symbols.failed;
      const color = success ? theme.success : waiting ? theme.accent : stopped ? theme.warning : theme.error;
      // A finished task's result is the model's summary, often markdown (a list, code): rendered beside its mark,
      // indented under it. Other results are cairn's own messages, shown as they are.
      const [first = "", ...rest] = success ? markdownLines(item.text, { width: Math.max(10, width - 4), colour: theme.accent !== undefined }) : [item.text];
      return (
        <Box flexDirection="column" marginTop={1}>
          <Text>
            <Text color={color} bold>
              {symbol}{" "}
            </Text>
            {first}
          </Text>
          {rest.length > 0 ? <Text>{rest.map((line) => (line === "" ? "" : `  ${line}`)).join("\n")}</Text> : null}
          <Text dimColor>{`  ${item.detail}`}</Text>
        </Box>
      );
    }
    case "info":
      return (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>{item.title}</Text>
          {item.lines.map((line, i) => (
            <Text key={i} wrap="truncate-end">{`  ${line}`}</Text>
          ))}
        </Box>
      );
    case "patch":
      return <PatchLines patch={item.patch} maxLines={400} />;
    case "released":
      return null;
  }
}
