import { describe, expect, it } from "vitest";
import { avatarInitial } from "./initial";

describe("avatarInitial", () => {
  it("uses the last Chinese character, or the first letter", () => {
    expect(avatarInitial("小明")).toBe("明");
    expect(avatarInitial(" 妈妈 ")).toBe("妈");
    expect(avatarInitial("lily")).toBe("L");
    expect(avatarInitial("Dad 爸爸")).toBe("爸");
    expect(avatarInitial("   ")).toBe("?");
  });
});
