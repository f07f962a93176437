import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { boundaryOf, parseMultipart } from "@/lib/http/multipart";

async function serialize(form: FormData): Promise<{ bytes: Uint8Array<ArrayBuffer>; contentType: string }> {
  const response = new Response(form);
  return { bytes: new Uint8Array(await response.arrayBuffer()), contentType: response.headers.get("content-type")! };
}

describe("parseMultipart", () => {
  it("reads what the platform's own FormData writes, part for part, as views into the body", async () => {
    const form = new FormData();
    form.append("engine", "vllm");
    form.append("file", new Blob([new Uint8Array([0, 1, 2, 13, 10, 45, 45, 255])]), "run=0.json");
    form.append("file", new Blob(["{}\r\n--not-a-boundary\r\n"]), 'quo"ted naïve 基线.json');
    form.append("file", new Blob([]), "empty.json");
    form.append("notes", "line 1\r\nline 2");
    const { bytes, contentType } = await serialize(form);
    const parts = parseMultipart(bytes, contentType);
    const reference = [
      ...(await new Response(bytes, { headers: { "content-type": contentType } }).formData()).entries(),
    ];
    expect(parts.map((part) => part.name)).toEqual(reference.map(([name]) => name));
    for (const [index, [, value]] of reference.entries()) {
      const part = parts[index]!;
      if (typeof value === "string") {
        expect(part.filename).toBeNull();
        expect(new TextDecoder().decode(part.bytes)).toBe(value);
      } else {
        expect(part.filename).toBe(value.name);
        expect([...part.bytes]).toEqual([...new Uint8Array(await value.arrayBuffer())]);
        expect(part.bytes.buffer).toBe(bytes.buffer);
      }
    }
  });

  it("takes a quoted boundary and a preamble", () => {
    const body = new TextEncoder().encode(
      'preamble\r\n--a b\r\nContent-Disposition: form-data; name="file"; filename="x.json"\r\n\r\n{"a":1}\r\n--a b--\r\n',
    );
    const parts = parseMultipart(body, 'multipart/form-data; boundary="a b"');
    expect(parts).toHaveLength(1);
    expect(new TextDecoder().decode(parts[0]!.bytes)).toBe('{"a":1}');
  });

  it.each([
    ["no boundary", "multipart/form-data", "--x\r\n"],
    ["a boundary that does not occur", "multipart/form-data; boundary=zz", "--x\r\n"],
    [
      "a part without Content-Disposition",
      "multipart/form-data; boundary=x",
      "--x\r\nContent-Type: text/plain\r\n\r\nhi\r\n--x--",
    ],
    [
      "a last part that is not closed",
      "multipart/form-data; boundary=x",
      '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nhi',
    ],
  ])("refuses %s with a 400", (_label, contentType, body) => {
    expect(() => parseMultipart(new TextEncoder().encode(body), contentType)).toThrow(AppError);
    try {
      parseMultipart(new TextEncoder().encode(body), contentType);
    } catch (error) {
      expect((error as AppError).code).toBe("bad_request");
      expect((error as AppError).message).toMatch(/^The multipart body could not be read: /);
    }
  });

  it("reads the boundary parameter", () => {
    expect(boundaryOf("multipart/form-data; boundary=----abc")).toBe("----abc");
    expect(boundaryOf('multipart/form-data; charset=utf-8; boundary="q r"')).toBe("q r");
  });
});
