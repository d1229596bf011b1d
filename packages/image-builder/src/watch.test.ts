import { describe, expect, it } from "vitest";
import { imageOfPath } from "./watch.js";

describe("imageOfPath", () => {
  const images = "/r/images";
  it("maps a path inside an image folder to the image", () => {
    expect(imageOfPath(images, "/r/images/node/package-lock.json", false)).toBe("node");
    expect(imageOfPath(images, "/r/images/node/deep/file", false)).toBe("node");
    expect(imageOfPath(images, "/r/images/new-image", true)).toBe("new-image");
  });
  it("ignores the registry file, its lock and temporary files at the top of images/", () => {
    expect(imageOfPath(images, "/r/images/registry.json", false)).toBeNull();
    expect(imageOfPath(images, "/r/images/registry.json.123.ab.tmp", false)).toBeNull();
    expect(imageOfPath(images, "/r/images/.registry.lock", true)).toBeNull();
    expect(imageOfPath(images, "/r/images", true)).toBeNull();
  });
});
