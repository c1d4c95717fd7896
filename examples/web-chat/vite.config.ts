import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The page imports indusagi by its public names (`indusagi/react`, `indusagi/chat`), which the
// repository's tsconfig `paths` point at the sources; a project using the package needs none of this.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  resolve: { tsconfigPaths: true },
  build: { outDir: 'dist', emptyOutDir: true },
});
