/**
 * The second half of `npm run build`: esbuild bundles tsc's dist/src (the same compile the tests
 * import) into dist/bundle/, which bin/mailvolley.js loads. Loading ~130 ES modules of dist/src
 * and ~45 of yargs one by one was most of a run's start. Entry points: the CLI and the piscina
 * worker (run/threads.ts loads `./worker.js` beside itself); the lazy imports stay lazy chunks and
 * the worker shares the CLI's chunks. Every chunk sits in dist/bundle/ itself, so the worker URL
 * holds in both layouts.
 *
 * External, resolved from node_modules at run time as in dist/src: piscina (it starts its own
 * worker file from its own directory), selfsigned (CommonJS that requires Node's builtins, loaded
 * only by a TLS sink without a certificate) and what src/ loads through createRequire (yaml,
 * hdr-histogram-js, uplot's assets), which esbuild does not follow.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("../", import.meta.url));
const { version } = JSON.parse(readFileSync(`${root}package.json`, "utf8"));

/**
 * yargs' Node shim finds its locale files (LANG=de_DE: German messages), its package.json and
 * its require() from its own import.meta.url. In a bundle that URL would be the chunk's: point
 * it at the shim's place in node_modules, found at run time, so yargs behaves as unbundled.
 */
const yargsShimAtHome = {
  name: "yargs-shim-at-home",
  setup(esbuild) {
    esbuild.onLoad({ filter: /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.includes("import.meta.url")) {
        throw new Error(`${args.path} no longer reads import.meta.url: check this plugin`);
      }
      const home = `import { createRequire as homeRequire } from "node:module";
import { pathToFileURL as homeUrl } from "node:url";
const shimUrl = new URL("lib/platform-shims/esm.mjs",
  homeUrl(homeRequire(import.meta.url).resolve("yargs/package.json"))).href;
`;
      return { contents: home + source.replaceAll("import.meta.url", "shimUrl"), loader: "js" };
    });
  },
};

/**
 * How the users' bundle is made; the bench's drive bundle (below) is made the same way, so the
 * bench measures the code users run: minified, names kept, the version defined.
 */
const asShipped = {
  absWorkingDir: root,
  entryNames: "[name]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["piscina", "selfsigned"],
  plugins: [yargsShimAtHome],
  // src/config/run-record.ts's toolVersion() reads package.json where this is not defined.
  define: { MAILVOLLEY_VERSION: JSON.stringify(version) },
  // Chained through tsc's maps to src/*.ts: `node --enable-source-maps bin/mailvolley.js`,
  // in a checkout and in an installed package (the maps are packed). Positions only, without
  // the sources' text: a trace needs file and line, and the package stays small.
  sourcemap: true,
  sourcesContent: false,
  // Function and class names as unbundled (yargs' YError in a stack trace, not _YError).
  keepNames: true,
  // Less for V8 to parse at start: "first connect" of the self-test at 145 instead of 166 ms
  // (MAILVOLLEY_TIMELINE=1, medians of 8 alternated runs); the source maps keep traces readable.
  minify: true,
  logLevel: "warning",
};

// Chunk names change with their content: last build's must not linger (or be packed).
rmSync(`${root}dist/bundle`, { recursive: true, force: true });
await build({
  ...asShipped,
  entryPoints: ["dist/src/cli/main.js", "dist/src/run/worker.js"],
  outdir: "dist/bundle",
});

// bench/drive.ts runs executeRun in its own process to measure it from inside; bundled beside
// its own copy of the worker entry (run/threads.ts loads `./worker.js` beside the chunk). Not packed.
if (existsSync(`${root}dist/bench/drive.js`)) {
  rmSync(`${root}dist/bench/bundle`, { recursive: true, force: true });
  await build({
    ...asShipped,
    entryPoints: ["dist/bench/drive.js", "dist/src/run/worker.js"],
    outdir: "dist/bench/bundle",
  });
}
