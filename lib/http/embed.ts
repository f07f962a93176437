/**
 * The embeds: pages made to be framed by other sites' documents (wikis, design docs, READMEs), the only pages that
 * may be. proxy.ts relaxes their frame-ancestors and tells the root layout, through request headers it alone sets,
 * to render them without navigation and in the theme the URL asks for.
 */
export const EMBED_PREFIX = "/embed";

export function isEmbedPath(pathname: string): boolean {
  return pathname === EMBED_PREFIX || pathname.startsWith(`${EMBED_PREFIX}/`);
}

/** "1" on a request for an embed. */
export const EMBED_HEADER = "x-servebench-embed";
/** "light" or "dark" when the embed's URL asks for one (`?theme=`); absent: the system's. */
export const THEME_HEADER = "x-servebench-theme";

export type EmbedTheme = "light" | "dark";

export function embedTheme(value: string | null | undefined): EmbedTheme | undefined {
  return value === "light" || value === "dark" ? value : undefined;
}
