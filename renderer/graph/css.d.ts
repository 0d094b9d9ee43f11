// Side-effect CSS imports (bundled by Vite; vitest ignores them).
declare module "*.css";
