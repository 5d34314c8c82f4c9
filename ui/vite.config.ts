import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// Tauri serves the built files from the app root, so the default base ("/") is right.
export default defineConfig({
  plugins: [react()],
  clearScreen: false,
  server: {
    port: 1420,
    strictPort: true,
    watch: {
      // The Rust side lives next door; don't let vite watch it.
      ignored: ["**/src-tauri/**", "**/crates/**", "**/target/**"],
    },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2021",
  },
  test: {
    environment: "jsdom",
    setupFiles: ["./src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    clearMocks: true,
    // 2-core machine: keep the worker pool small.
    maxWorkers: 2,
    // Under load (a build beside the tests) one jsdom test can take over
    // vitest's default 5 s without anything being wrong; a real hang still fails.
    testTimeout: 30_000,
  },
});
