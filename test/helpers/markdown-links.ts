/** The relative links of a Markdown page, as the docs tests and the installed package check them. */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

/** The targets of inline Markdown links `[text](target)` and images, code spans left out. */
export function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    ([, target]) => target,
  );
}

function isRelative(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#");
}

/** The files `page` (a path under `root`) links to, as paths under `root`. */
export function relativeLinks(root: string, page: string): string[] {
  return linkTargets(readFileSync(join(root, page), "utf8"))
    .filter(isRelative)
    .map((target) => normalize(join(dirname(page), decodeURIComponent(target.split("#")[0]))));
}

/** The files `page` links to that do not exist under `root`. */
export function missingLinks(root: string, page: string): string[] {
  return relativeLinks(root, page).filter((path) => !existsSync(join(root, path)));
}
