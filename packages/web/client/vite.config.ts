import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));

// The page is built once at install time and served by `cairn web` from client-dist.
export default defineConfig({
  root: here,
  base: "/",
  plugins: [react()],
  logLevel: "warn",
  build: { outDir: fileURLToPath(new URL("../client-dist", import.meta.url)), emptyOutDir: true, sourcemap: false },
  server: { fs: { allow: [fileURLToPath(new URL("../..", import.meta.url))] } },
});
