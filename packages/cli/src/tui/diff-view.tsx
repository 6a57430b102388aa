/** @jsxRuntime automatic */
import { Box, Text } from "ink";
import type { DiffLine } from "@cairn/core";
import { useTheme } from "./theme.js";

/** Coloured diff lines, numbered; cut after `maxLines` with a count of what is left out. */
export function DiffLines({ lines, maxLines, wrap = false }: { lines: DiffLine[]; maxLines: number; wrap?: boolean }) {
  const theme = useTheme();
  const shown = lines.slice(0, maxLines);
  const rest = lines.length - shown.length;
  const width = String(Math.max(1, ...shown.map((l) => (l.type === "gap" ? 0 : l.line)))).length;
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {shown.map((line, index) =>
        line.type === "gap" ? (
          <Text key={index} dimColor>
            {`${" ".repeat(width)}   ⋮ ${line.skipped} unchanged line${line.skipped === 1 ? "" : "s"}`}
          </Text>
        ) : (
          <Text
            key={index}
            wrap={wrap ? "wrap" : "truncate-end"}
            {...(line.type === "+" ? { color: theme.added } : line.type === "-" ? { color: theme.removed } : { dimColor: true })}
          >
            {`${String(line.line).padStart(width)} ${line.type === " " ? " " : line.type === "+" ? "+" : "−"} ${line.text}`}
          </Text>
        ),
      )}
      {rest > 0 ? <Text dimColor>{`… ${rest} more diff line${rest === 1 ? "" : "s"}`}</Text> : null}
    </Box>
  );
}

/** A unified diff (git's), coloured by line. */
export function PatchLines({ patch, maxLines }: { patch: string; maxLines: number }) {
  const theme = useTheme();
  const lines = patch.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, maxLines);
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {shown.map((line, index) => {
        const header = line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ") || line.startsWith("index ");
        const props = header
          ? { bold: true }
          : line.startsWith("+")
            ? { color: theme.added }
            : line.startsWith("-")
              ? { color: theme.removed }
              : line.startsWith("@@")
                ? { color: theme.accent }
                : { dimColor: true };
        return (
          <Text key={index} wrap="truncate-end" {...props}>
            {line === "" ? " " : line}
          </Text>
        );
      })}
      {lines.length > shown.length ? <Text dimColor>{`… ${lines.length - shown.length} more lines (cairn checkpoints diff shows all)`}</Text> : null}
    </Box>
  );
}
