import type { Metadata } from "next";
import { UploadForm } from "@/components/upload/UploadForm";
import { PageHeader } from "@/components/ui/primitives";

export const metadata: Metadata = { title: "Upload" };

export default function UploadPage() {
  return (
    <>
      <PageHeader
        title="Upload a run"
        subtitle={
          <>
            Drop a servebench/v1 JSON file (the{" "}
            <a href="/api/schema" className="text-blue-700 hover:underline dark:text-blue-400">
              JSON Schema
            </a>{" "}
            describes it; a run downloaded from any servebench works as is). Fill in what the file does not say, check the
            preview, then save.
          </>
        }
      />
      <UploadForm />
    </>
  );
}
