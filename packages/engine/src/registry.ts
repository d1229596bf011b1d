function manifestUrl(reference: string): URL | undefined {
  const match = reference.match(/^([^/]+)\/(.+)@(sha256:[0-9a-f]{64})$/);
  if (!match) return undefined;
  const [, host = "", repo, digest] = match;
  if (!host.includes(".") && !host.includes(":") && host !== "localhost") return undefined;
  const local = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(host);
  return new URL(`${local ? "http" : "https"}://${host}/v2/${repo}/manifests/${digest}`);
}

const MANIFEST_TYPES = [
  "application/vnd.docker.distribution.manifest.v2+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.oci.image.index.v1+json",
].join(", ");

/**
 * Whether the registry that `host/repo@sha256:…` names answers HEAD /v2/<repo>/manifests/<digest>
 * with 200 (within 5 s). False for a reference without a registry host or a digest.
 */
export async function registryHasManifest(reference: string): Promise<boolean> {
  const url = manifestUrl(reference);
  if (!url) return false;
  try {
    const response = await fetch(url, {
      method: "HEAD",
      headers: { accept: MANIFEST_TYPES },
      signal: AbortSignal.timeout(5000),
    });
    return response.ok;
  } catch {
    return false;
  }
}
