import { z } from "zod";

/** A language server the person adds or changes: how to start it and which files it checks. */
export const serverSettingsSchema = z
  .strictObject({
    /** The program and its arguments, e.g. ["gopls"] or ["ruby-lsp"]; it talks LSP on stdio. */
    command: z.array(z.string().min(1)).min(1),
    /** File name endings it checks, with the dot: [".go"]. */
    extensions: z.array(z.string().regex(/^\.[^/\\]+$/, "an extension starts with a dot, e.g. \".go\"")).min(1),
    /** Files or folders that mark a project's root (go.mod); the workspace is the root without one. */
    rootMarkers: z.array(z.string().min(1)),
    /** Sent as the server's initializationOptions. */
    initializationOptions: z.record(z.string(), z.unknown()),
    /** The LSP languageId of its files (default: the extension without the dot). */
    languageId: z.string().min(1),
  })
  .partial();

/**
 * settings.json `lsp`: false turns language servers off; otherwise `servers` adds one (a name of
 * its own) or changes a built-in one (typescript, pyright, gopls, rust-analyzer, clangd), and
 * `false` for a name turns that one off; `warnings` reports new warnings too, not only errors.
 */
export const lspSettingsSchema = z.union([
  z.literal(false),
  z
    .strictObject({
      servers: z.record(z.string().min(1), z.union([z.literal(false), serverSettingsSchema])),
      warnings: z.boolean(),
      /** Longest wait for a server's first answer (it loads the project), in ms; default 30,000. */
      startWaitMs: z.number().int().positive(),
      /** Longest wait of an edit's result for a server that has answered before, in ms; default 5,000. */
      waitMs: z.number().int().positive(),
    })
    .partial(),
]);

export type LspSettings = z.infer<typeof lspSettingsSchema>;
export type ServerSettings = z.infer<typeof serverSettingsSchema>;
