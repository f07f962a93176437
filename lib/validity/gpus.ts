/**
 * The GPUs servebench knows the memory bandwidth of, for the validity checks (docs/metrics.md#validity-checks),
 * and the matcher that finds a run's free-text `hardware.gpu` among them. Each entry's figures are the vendor's
 * datasheet figures (source_url); the price is a typical rental price, for orientation only.
 *
 * Where one name covers variants with different bandwidths and the run does not say which it used (a bare
 * "RTX PRO 6000 Blackwell"), the entry takes the highest bandwidth of the variants: the roofline check then
 * errs towards letting a run pass, never towards marking a real one.
 */

export type GpuVendor = "NVIDIA" | "AMD" | "Intel";

export interface GpuSpec {
  /** A stable key, e.g. "h100-sxm". */
  id: string;
  /** How the GPU reads in a sentence, e.g. "H100 SXM". */
  name: string;
  vendor: GpuVendor;
  memory_gb: number;
  /** Peak memory bandwidth of one GPU, in GB/s (10^9 bytes per second). */
  bandwidth_gb_s: number;
  /** Board power (TDP, or the vendor's maximum board power), in W. */
  tdp_w: number;
  /** A typical rental price per GPU-hour (see PRICE_NOTE); null when no price list we cite rents it. */
  price_usd_per_hour: number | null;
  /** The vendor's datasheet or product page the figures come from. */
  source_url: string;
  /** What the figures assume, where a reader needs to know. */
  note?: string;
}

/**
 * What `price_usd_per_hour` is: RunPod's price list of March 2026 as tabulated by deploybase.ai (the lower,
 * community-cloud rate), rounded to the cent. Rental prices move by the month and differ twofold between
 * providers; a comparison's cost inputs should be the user's own.
 */
export const PRICE_NOTE = "typical GPU-hour price: RunPod's lower rate, March 2026 (deploybase.ai)";
export const PRICE_SOURCE_URL = "https://deploybase.ai/articles/runpod-gpu-pricing";

const H100_PAGE = "https://www.nvidia.com/en-us/data-center/h100/";
const H200_PAGE = "https://www.nvidia.com/en-us/data-center/h200/";
const A100_DATASHEET =
  "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf";
const RTX_PRO_6000_WORKSTATION =
  "https://www.nvidia.com/en-us/products/workstations/professional-desktop-gpus/rtx-pro-6000/";

export const GPUS = {
  "h100-sxm": {
    id: "h100-sxm",
    name: "H100 SXM",
    vendor: "NVIDIA",
    memory_gb: 80,
    bandwidth_gb_s: 3_350,
    tdp_w: 700,
    price_usd_per_hour: 2.69,
    source_url: H100_PAGE,
  },
  "h100-pcie": {
    id: "h100-pcie",
    name: "H100 PCIe",
    vendor: "NVIDIA",
    memory_gb: 80,
    bandwidth_gb_s: 2_000,
    tdp_w: 350,
    price_usd_per_hour: 1.99,
    source_url: "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
  },
  "h100-nvl": {
    id: "h100-nvl",
    name: "H100 NVL",
    vendor: "NVIDIA",
    memory_gb: 94,
    bandwidth_gb_s: 3_900,
    tdp_w: 400,
    price_usd_per_hour: null,
    source_url: H100_PAGE,
  },
  "h200-sxm": {
    id: "h200-sxm",
    name: "H200 SXM",
    vendor: "NVIDIA",
    memory_gb: 141,
    bandwidth_gb_s: 4_800,
    tdp_w: 700,
    price_usd_per_hour: 3.59,
    source_url: H200_PAGE,
  },
  "h200-nvl": {
    id: "h200-nvl",
    name: "H200 NVL",
    vendor: "NVIDIA",
    memory_gb: 141,
    bandwidth_gb_s: 4_800,
    tdp_w: 600,
    price_usd_per_hour: null,
    source_url: H200_PAGE,
  },
  h20: {
    id: "h20",
    name: "H20",
    vendor: "NVIDIA",
    memory_gb: 96,
    bandwidth_gb_s: 4_000,
    tdp_w: 400,
    price_usd_per_hour: null,
    source_url: "https://willitrunai.com/es/gpus/h20-96gb",
    note: "NVIDIA publishes no datasheet for the H20 (sold in China only); the figures are those its partners list.",
  },
  b200: {
    id: "b200",
    name: "B200",
    vendor: "NVIDIA",
    memory_gb: 180,
    bandwidth_gb_s: 8_000,
    tdp_w: 1_000,
    price_usd_per_hour: 5.98,
    source_url: "https://www.nvidia.com/en-us/data-center/dgx-b200/",
    note: "DGX B200: 1,440 GB and 64 TB/s over 8 GPUs, so 180 GB and 8 TB/s each; 1,000 W per GPU in HGX B200.",
  },
  gb200: {
    id: "gb200",
    name: "GB200",
    vendor: "NVIDIA",
    memory_gb: 186,
    bandwidth_gb_s: 8_000,
    tdp_w: 1_200,
    price_usd_per_hour: null,
    source_url: "https://www.nvidia.com/en-us/data-center/gb200-nvl72/",
    note: "One Blackwell GPU of a GB200 NVL72: 13.4 TB and 576 TB/s over 72 GPUs; 1,200 W per GPU as configured there.",
  },
  "a100-40gb-sxm": {
    id: "a100-40gb-sxm",
    name: "A100 40GB SXM",
    vendor: "NVIDIA",
    memory_gb: 40,
    bandwidth_gb_s: 1_555,
    tdp_w: 400,
    price_usd_per_hour: null,
    source_url: A100_DATASHEET,
  },
  "a100-80gb-sxm": {
    id: "a100-80gb-sxm",
    name: "A100 80GB SXM",
    vendor: "NVIDIA",
    memory_gb: 80,
    bandwidth_gb_s: 2_039,
    tdp_w: 400,
    price_usd_per_hour: 1.39,
    source_url: A100_DATASHEET,
  },
  "a100-40gb-pcie": {
    id: "a100-40gb-pcie",
    name: "A100 40GB PCIe",
    vendor: "NVIDIA",
    memory_gb: 40,
    bandwidth_gb_s: 1_555,
    tdp_w: 250,
    price_usd_per_hour: null,
    source_url: A100_DATASHEET,
  },
  "a100-80gb-pcie": {
    id: "a100-80gb-pcie",
    name: "A100 80GB PCIe",
    vendor: "NVIDIA",
    memory_gb: 80,
    bandwidth_gb_s: 1_935,
    tdp_w: 300,
    price_usd_per_hour: 1.19,
    source_url: A100_DATASHEET,
  },
  l40s: {
    id: "l40s",
    name: "L40S",
    vendor: "NVIDIA",
    memory_gb: 48,
    bandwidth_gb_s: 864,
    tdp_w: 350,
    price_usd_per_hour: 0.79,
    source_url: "https://www.nvidia.com/en-us/data-center/l40s/",
  },
  l4: {
    id: "l4",
    name: "L4",
    vendor: "NVIDIA",
    memory_gb: 24,
    bandwidth_gb_s: 300,
    tdp_w: 72,
    price_usd_per_hour: 0.44,
    source_url: "https://www.nvidia.com/en-us/data-center/l4/",
  },
  a10g: {
    id: "a10g",
    name: "A10G",
    vendor: "NVIDIA",
    memory_gb: 24,
    bandwidth_gb_s: 600,
    tdp_w: 300,
    price_usd_per_hour: null,
    source_url: "https://www.nvidia.com/en-us/data-center/products/a10-gpu/",
    note: "AWS's variant of the A10 (EC2 G5): NVIDIA publishes the A10's 24 GB and 600 GB/s; 300 W is the A10G's power limit.",
  },
  "rtx-pro-6000-blackwell": {
    id: "rtx-pro-6000-blackwell",
    name: "RTX PRO 6000 Blackwell",
    vendor: "NVIDIA",
    memory_gb: 96,
    bandwidth_gb_s: 1_792,
    tdp_w: 600,
    price_usd_per_hour: 0.89,
    source_url: RTX_PRO_6000_WORKSTATION,
    note: "Edition not stated: the Workstation Edition's 1,792 GB/s, the higher of the editions' bandwidths.",
  },
  "rtx-pro-6000-blackwell-server": {
    id: "rtx-pro-6000-blackwell-server",
    name: "RTX PRO 6000 Blackwell Server Edition",
    vendor: "NVIDIA",
    memory_gb: 96,
    bandwidth_gb_s: 1_597,
    tdp_w: 600,
    price_usd_per_hour: null,
    source_url: "https://www.nvidia.com/en-us/data-center/rtx-pro-6000-blackwell-server-edition/",
  },
  "rtx-pro-6000-blackwell-workstation": {
    id: "rtx-pro-6000-blackwell-workstation",
    name: "RTX PRO 6000 Blackwell Workstation Edition",
    vendor: "NVIDIA",
    memory_gb: 96,
    bandwidth_gb_s: 1_792,
    tdp_w: 600,
    price_usd_per_hour: null,
    source_url: RTX_PRO_6000_WORKSTATION,
  },
  "rtx-pro-6000-blackwell-max-q": {
    id: "rtx-pro-6000-blackwell-max-q",
    name: "RTX PRO 6000 Blackwell Max-Q Workstation Edition",
    vendor: "NVIDIA",
    memory_gb: 96,
    bandwidth_gb_s: 1_792,
    tdp_w: 300,
    price_usd_per_hour: null,
    source_url: "https://www.nvidia.com/en-us/products/workstations/professional-desktop-gpus/rtx-pro-6000-max-q/",
  },
  "rtx-5090": {
    id: "rtx-5090",
    name: "GeForce RTX 5090",
    vendor: "NVIDIA",
    memory_gb: 32,
    bandwidth_gb_s: 1_792,
    tdp_w: 575,
    price_usd_per_hour: 0.69,
    source_url: "https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5090/",
  },
  "rtx-4090": {
    id: "rtx-4090",
    name: "GeForce RTX 4090",
    vendor: "NVIDIA",
    memory_gb: 24,
    bandwidth_gb_s: 1_008,
    tdp_w: 450,
    price_usd_per_hour: 0.34,
    source_url: "https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4090/",
  },
  "rtx-3090": {
    id: "rtx-3090",
    name: "GeForce RTX 3090",
    vendor: "NVIDIA",
    memory_gb: 24,
    bandwidth_gb_s: 936,
    tdp_w: 350,
    price_usd_per_hour: 0.22,
    source_url: "https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3090-3090ti/",
  },
  mi300x: {
    id: "mi300x",
    name: "Instinct MI300X",
    vendor: "AMD",
    memory_gb: 192,
    bandwidth_gb_s: 5_300,
    tdp_w: 750,
    price_usd_per_hour: null,
    source_url: "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html",
  },
  mi325x: {
    id: "mi325x",
    name: "Instinct MI325X",
    vendor: "AMD",
    memory_gb: 256,
    bandwidth_gb_s: 6_000,
    tdp_w: 1_000,
    price_usd_per_hour: null,
    source_url: "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html",
  },
  mi355x: {
    id: "mi355x",
    name: "Instinct MI355X",
    vendor: "AMD",
    memory_gb: 288,
    bandwidth_gb_s: 8_000,
    tdp_w: 1_400,
    price_usd_per_hour: null,
    source_url: "https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html",
  },
  "gaudi-3": {
    id: "gaudi-3",
    name: "Gaudi 3",
    vendor: "Intel",
    memory_gb: 128,
    bandwidth_gb_s: 3_700,
    tdp_w: 900,
    price_usd_per_hour: null,
    source_url:
      "https://www.intel.com/content/www/us/en/content-details/817486/intel-gaudi-3-ai-accelerator-white-paper.html",
    note: "The OAM module (HL-325L); the PCIe card is limited to 600 W.",
  },
} as const satisfies Record<string, GpuSpec>;

export type GpuId = keyof typeof GPUS;

/**
 * A GPU's name as words: lower-case, every run of other characters a space, and a digit followed by a letter
 * split apart ("80GB" → "80 gb", "H100SXM5" → "h100 sxm5", "L40S" → "l40 s"), so that "H100-SXM5-80GB",
 * "H100 SXM5 80GB" and "h100_sxm5_80gb" read alike. Vendor and brand words carry no variant and are dropped.
 */
export function gpuNameWords(name: string): string[] {
  const spaced = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .replace(/(\d)([a-z])/g, "$1 $2");
  const brand = new Set(["nvidia", "amd", "intel", "habana", "geforce", "instinct", "tesla", "graphics", "card"]);
  return spaced.split(" ").filter((word) => word !== "" && !brand.has(word));
}

/** Whether `words` holds `sequence` (space-separated words) in a row. */
function hasSequence(words: readonly string[], sequence: string): boolean {
  const wanted = sequence.split(" ");
  for (let start = 0; start + wanted.length <= words.length; start += 1) {
    if (wanted.every((word, offset) => words[start + offset] === word)) return true;
  }
  return false;
}

/** The memory a name states, "80GB" → 80; null when it states none. */
function statedMemoryGb(words: readonly string[]): number | null {
  for (let index = 1; index < words.length; index += 1) {
    if (words[index] === "gb" && /^\d+$/.test(words[index - 1]!)) return Number(words[index - 1]);
  }
  return null;
}

function h100Variant(words: readonly string[], memoryGb: number | null): GpuId {
  if (words.includes("nvl")) return "h100-nvl";
  if (words.includes("pcie")) return "h100-pcie";
  if (words.some((word) => word.startsWith("sxm")) || words.includes("hbm3")) return "h100-sxm";
  // A bare "H100": the NVL is the one with 94 GB; of the 80 GB two, the SXM is the common one (and the faster).
  return memoryGb !== null && memoryGb >= 90 ? "h100-nvl" : "h100-sxm";
}

function a100Variant(words: readonly string[], memoryGb: number | null): GpuId {
  const large = memoryGb === null || memoryGb >= 60;
  if (words.includes("pcie")) return large ? "a100-80gb-pcie" : "a100-40gb-pcie";
  return large ? "a100-80gb-sxm" : "a100-40gb-sxm";
}

function rtxPro6000Variant(words: readonly string[]): GpuId {
  if (words.includes("server")) return "rtx-pro-6000-blackwell-server";
  if (hasSequence(words, "max q") || words.includes("maxq")) return "rtx-pro-6000-blackwell-max-q";
  if (words.includes("workstation")) return "rtx-pro-6000-blackwell-workstation";
  return "rtx-pro-6000-blackwell";
}

/** A consumer card's number ("4090"), written "RTX 4090", "RTX4090" or "4090". */
function hasCardNumber(words: readonly string[], number: string): boolean {
  return words.includes(number) || words.includes(`rtx${number}`);
}

/**
 * The catalogue's id for a GPU name as people and tools write it ("NVIDIA H100 80GB HBM3", "H100-SXM5-80GB",
 * "RTX PRO 6000 Blackwell Server Edition", "NVIDIA GeForce RTX 4090", "AMD Instinct MI300X"); null when the
 * name is not one of them. `memoryMib` (the run's `gpu_memory_mib`) tells apart variants a bare name leaves open
 * (A100 40 or 80 GB, H100 SXM or NVL). A laptop part, a Ti or a different chip of a similar name is null, never
 * its namesake: a wrong bandwidth would make the check wrong.
 */
export function matchGpuId(name: string | null | undefined, memoryMib?: number | null): GpuId | null {
  if (!name) return null;
  const words = gpuNameWords(name);
  if (words.includes("laptop") || words.includes("mobile") || words.includes("ti")) return null;
  const memoryGb = statedMemoryGb(words) ?? (memoryMib ? memoryMib / 1024 : null);

  if (words.includes("gb200")) return "gb200";
  if (words.includes("b200")) return "b200";
  if (words.includes("h200")) return words.includes("nvl") ? "h200-nvl" : "h200-sxm";
  // The 96 GB H20; a later part of the same name with more memory is another GPU.
  if (words.includes("h20")) return memoryGb === null || memoryGb < 110 ? "h20" : null;
  if (words.includes("h100")) return h100Variant(words, memoryGb);
  if (words.includes("a100")) return a100Variant(words, memoryGb);
  if (hasSequence(words, "a10 g")) return "a10g";
  if (hasSequence(words, "l40 s")) return "l40s";
  if (words.includes("l4")) return "l4";
  if (words.includes("pro") && words.includes("6000") && !words.includes("ada")) return rtxPro6000Variant(words);
  if (hasCardNumber(words, "5090")) return "rtx-5090";
  if (hasCardNumber(words, "4090")) return "rtx-4090";
  if (hasCardNumber(words, "3090")) return "rtx-3090";
  if (hasSequence(words, "mi300 x")) return "mi300x";
  if (hasSequence(words, "mi325 x")) return "mi325x";
  if (hasSequence(words, "mi355 x")) return "mi355x";
  if (hasSequence(words, "gaudi 3") || words.includes("gaudi3") || hasSequence(words, "hl 325 l")) return "gaudi-3";
  return null;
}

/** The catalogue entry of a GPU name; null when the GPU is not in the catalogue. */
export function matchGpu(name: string | null | undefined, memoryMib?: number | null): GpuSpec | null {
  const id = matchGpuId(name, memoryMib);
  return id === null ? null : GPUS[id];
}
