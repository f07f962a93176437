import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/primitives";
import { UploadForm } from "@/components/upload/UploadForm";

export const metadata: Metadata = { title: "Upload" };

export default function UploadPage() {
  return (
    <>
      <PageHeader
        title="Upload a run"
        subtitle={
          <>
            Drop the files your benchmark tool wrote: vLLM, SGLang, GuideLLM, AIPerf, LLMPerf, inference-perf,
            TensorRT-LLM, llama-bench, llm-d reports, or{" "}
            <a href="/api/schema" className="text-blue-700 underline underline-offset-2 dark:text-blue-400">
              servebench/v1
            </a>{" "}
            (a run downloaded from any servebench). Several files, a folder or a .zip of one become one run with a point
            per load level. Fill in what the files do not say, check the preview, then save.
          </>
        }
      />
      <UploadForm />
    </>
  );
}
