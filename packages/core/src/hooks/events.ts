/**
 * The hook events, what the loop tells the runner about each, and the JSON a hook reads on stdin.
 * Field names on stdin are Claude Code's (snake_case), so hooks written for it run unchanged.
 */
import type { Mode } from "../policy/mode.js";

export const hookEventNames = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "Notification",
] as const;

export type HookEventName = (typeof hookEventNames)[number];

export function isHookEventName(name: string): name is HookEventName {
  return (hookEventNames as readonly string[]).includes(name);
}

/** Claude Code's `permission_mode`, in Cairn's terms. */
export type PermissionMode = "default" | "yolo" | "plan";

/** Plan mode wins: a yolo task in Plan mode still cannot edit. */
export function permissionMode(state: { mode: Mode; yolo: boolean }): PermissionMode {
  if (state.mode === "plan") return "plan";
  return state.yolo ? "yolo" : "default";
}

/** What every event carries. */
export type HookSession = {
  sessionId: string;
  /** The workspace: the hook runs there, and it is CAIRN_PROJECT_DIR. */
  cwd: string;
  permissionMode: PermissionMode;
  /** The task's conversation file, when the task is stored. */
  transcriptPath?: string;
};

export type PreToolUseInput = HookSession & {
  toolName: string;
  toolInput: Record<string, unknown>;
  toolUseId: string;
};

export type PostToolUseInput = PreToolUseInput & {
  /** The result as the model reads it. */
  toolResponse: { content: string; isError: boolean };
};

export type UserPromptSubmitInput = HookSession & { prompt: string };

export type StopInput = HookSession & {
  /** How many times in a row Stop hooks have already kept this run going (0 the first time). */
  continuations: number;
};

export type SessionStartInput = HookSession & { source: "startup" | "resume" };

/** `reason` as Claude Code: "prompt_input_exit" (the person quit), "clear", "logout", "other". */
export type SessionEndInput = HookSession & { reason: string };

export type PreCompactInput = HookSession & { trigger: "manual" | "auto"; customInstructions?: string };

export type NotificationInput = HookSession & {
  message: string;
  /** e.g. "permission_prompt", "question"; sent as `notification_type` when given. */
  notificationType?: string;
};

export type HookInputs = {
  PreToolUse: PreToolUseInput;
  PostToolUse: PostToolUseInput;
  UserPromptSubmit: UserPromptSubmitInput;
  Stop: StopInput;
  SessionStart: SessionStartInput;
  SessionEnd: SessionEndInput;
  PreCompact: PreCompactInput;
  Notification: NotificationInput;
};

/** The JSON a hook of `event` reads on stdin. */
export function hookPayload<E extends HookEventName>(event: E, input: HookInputs[E]): Record<string, unknown> {
  const base = {
    session_id: input.sessionId,
    transcript_path: input.transcriptPath ?? "",
    cwd: input.cwd,
    permission_mode: input.permissionMode,
    hook_event_name: event,
  };
  return { ...base, ...eventFields(event, input) };
}

function eventFields<E extends HookEventName>(event: E, input: HookInputs[E]): Record<string, unknown> {
  // Each case narrows `input` by hand: TypeScript does not narrow a generic through `event`.
  switch (event) {
    case "PreToolUse": {
      const i = input as PreToolUseInput;
      return { tool_name: i.toolName, tool_input: i.toolInput, tool_use_id: i.toolUseId };
    }
    case "PostToolUse": {
      const i = input as PostToolUseInput;
      return {
        tool_name: i.toolName,
        tool_input: i.toolInput,
        tool_use_id: i.toolUseId,
        tool_response: { content: i.toolResponse.content, is_error: i.toolResponse.isError },
      };
    }
    case "UserPromptSubmit":
      return { prompt: (input as UserPromptSubmitInput).prompt };
    case "Stop":
      return { stop_hook_active: (input as StopInput).continuations > 0 };
    case "SessionStart":
      return { source: (input as SessionStartInput).source };
    case "SessionEnd":
      return { reason: (input as SessionEndInput).reason };
    case "PreCompact": {
      const i = input as PreCompactInput;
      return { trigger: i.trigger, custom_instructions: i.customInstructions ?? "" };
    }
    case "Notification": {
      const i = input as NotificationInput;
      return { message: i.message, ...(i.notificationType === undefined ? {} : { notification_type: i.notificationType }) };
    }
  }
  return {};
}

/** What a matcher is tested against: the tool for tool events, the source or trigger for two others; nothing else filters. */
export function matchTarget<E extends HookEventName>(event: E, input: HookInputs[E]): string | undefined {
  if (event === "PreToolUse" || event === "PostToolUse") return (input as PreToolUseInput).toolName;
  if (event === "SessionStart") return (input as SessionStartInput).source;
  if (event === "PreCompact") return (input as PreCompactInput).trigger;
  return undefined;
}
