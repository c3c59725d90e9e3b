import { resolve } from 'node:path';
import type { Plugin } from 'vite';

/** What the build writes beside index.html: each page address's files, which the server names in a `Link` header. */
export const PAGE_PRELOADS_FILE = 'page-preloads.json';

/** A page's files beyond the entry's: scripts to preload as modules, style sheets as styles (paths from the site's root). */
export interface PagePreloads {
  scripts: string[];
  styles: string[];
}

/**
 * Names, for each page address whose code is a chunk of its own, the files that page needs beyond
 * the entry chunk (docs/decisions/0278): the page's chunk, the chunks it imports statically, and
 * their style sheets. `pages` maps an address pattern (`/sign-in`, `/boards/:boardId`) to the
 * page's module, relative to web/. The app asks for those chunks only once the entry has run (the
 * CSP allows no inline script to ask earlier); the server's `Link` header lets the browser fetch
 * them beside the entry instead.
 */
export function pagePreloads(pages: Record<string, string>): Plugin {
  let root = '';
  return {
    name: 'taskboard-page-preloads',
    apply: 'build',
    configResolved(config) {
      root = config.root;
    },
    generateBundle(_options, bundle) {
      const chunks = new Map<string, { imports: string[]; css: string[]; module: string | null; entry: boolean }>();
      for (const output of Object.values(bundle)) {
        if (output.type !== 'chunk') continue;
        const css = [...(output.viteMetadata?.importedCss ?? [])];
        chunks.set(output.fileName, { imports: output.imports, css, module: output.facadeModuleId, entry: output.isEntry });
      }
      /** A chunk and every chunk it imports statically. */
      const closure = (fileName: string, into = new Set<string>()): Set<string> => {
        if (into.has(fileName)) return into;
        into.add(fileName);
        for (const imported of chunks.get(fileName)?.imports ?? []) closure(imported, into);
        return into;
      };
      const loaded = new Set<string>();
      for (const [fileName, chunk] of chunks) if (chunk.entry) closure(fileName, loaded);
      const found: Record<string, PagePreloads> = {};
      for (const [pattern, module] of Object.entries(pages)) {
        const path = resolve(root, module);
        const page = [...chunks].find(([, chunk]) => chunk.module === path)?.[0];
        if (!page) this.error(`${pattern}: no chunk of its own for ${module} (is it imported lazily?)`);
        const files = [...closure(page)].filter((fileName) => !loaded.has(fileName));
        found[pattern] = {
          scripts: files.map((fileName) => `/${fileName}`),
          styles: [...new Set(files.flatMap((fileName) => chunks.get(fileName)?.css ?? []))].map((fileName) => `/${fileName}`),
        };
      }
      this.emitFile({ type: 'asset', fileName: PAGE_PRELOADS_FILE, source: `${JSON.stringify(found, null, 2)}\n` });
    },
  };
}
