/**
 * Chart labels never cover each other, a point, or the plot's edge (components/charts/label-layout.ts): the
 * rules on small cases whose answer is known, and on crowds of random points.
 */
import { describe, expect, it } from "vitest";
import {
  type Box,
  boxesOverlap,
  boxInside,
  LABEL_GAP_PX,
  layoutLabels,
  markerLabelCandidates,
  pointLabelCandidates,
} from "@/components/charts/label-layout";
import { seededUniform } from "@/lib/seeded-random";

const PLOT: Box = { left: 70, top: 30, width: 300, height: 200 };

describe("point labels", () => {
  it("puts a label centred above its point when there is room", () => {
    const placed = layoutLabels([{ id: "C=64", candidates: pointLabelCandidates(200, 100, 30, 14, 5) }], PLOT);
    expect(placed).toEqual([{ id: "C=64", candidate: 0, box: { left: 185, top: 79, width: 30, height: 14 } }]);
  });

  it("two runs' labels at the same point: the second goes below, not on top of the first", () => {
    const placed = layoutLabels(
      [
        { id: "run A C=64", candidates: pointLabelCandidates(200, 100, 30, 14, 5) },
        { id: "run B C=64", candidates: pointLabelCandidates(200, 100, 30, 14, 5) },
      ],
      PLOT,
    );
    expect(placed.map((label) => [label.id, label.candidate, label.box.top])).toEqual([
      ["run A C=64", 0, 79],
      ["run B C=64", 1, 107],
    ]);
    expect(boxesOverlap(placed[0]!.box, placed[1]!.box)).toBe(false);
  });

  it("a point at the plot's top right corner takes a box below and to its left, inside the plot", () => {
    const [label] = layoutLabels([{ id: "C=1", candidates: pointLabelCandidates(368, 32, 24, 14, 5) }], PLOT);
    expect(label!.candidate).toBe(7);
    expect(boxInside(label!.box, PLOT)).toBe(true);
  });

  it("leaves a label out when every box it may take is covered", () => {
    // Labels of 40 px at one point: above and below take the room; each box beside or at a corner reaches
    // within the gap of one of those two.
    const crowd = Array.from({ length: 3 }, (_, index) => ({
      id: `label ${index}`,
      candidates: pointLabelCandidates(200, 100, 40, 14, 5),
    }));
    const placed = layoutLabels(crowd, PLOT);
    expect(placed.map((label) => [label.id, label.candidate])).toEqual([
      ["label 0", 0],
      ["label 1", 1],
    ]);
  });

  it("keeps off the points themselves", () => {
    const other: Box = { left: 195, top: 80, width: 10, height: 10 };
    const [label] = layoutLabels([{ id: "C=8", candidates: pointLabelCandidates(200, 100, 30, 14, 5) }], PLOT, [other]);
    expect(label!.candidate).toBe(1);
  });

  it("on 40 random points: every placed label lies inside the plot, clear of the others and of every point", () => {
    const random = seededUniform(42);
    const points = Array.from({ length: 40 }, () => ({
      x: PLOT.left + random() * PLOT.width,
      y: PLOT.top + random() * PLOT.height,
      width: 20 + random() * 40,
    }));
    const obstacles = points.map(({ x, y }) => ({ left: x - 5, top: y - 5, width: 10, height: 10 }));
    const placed = layoutLabels(
      points.map(({ x, y, width }, index) => ({
        id: String(index),
        candidates: pointLabelCandidates(x, y, width, 14, 5),
      })),
      PLOT,
      obstacles,
    );
    expect(placed.length).toBeGreaterThan(10);
    expect(placed.length).toBeLessThan(40);
    for (const [index, label] of placed.entries()) {
      expect(boxInside(label.box, PLOT)).toBe(true);
      for (const other of placed.slice(index + 1)) expect(boxesOverlap(label.box, other.box, LABEL_GAP_PX)).toBe(false);
      for (const obstacle of obstacles) expect(boxesOverlap(label.box, obstacle)).toBe(false);
    }
  });
});

describe("marker labels", () => {
  it("two change lines a day apart: the second label drops to the next row", () => {
    const placed = layoutLabels(
      [
        { id: "regression -22.1%", candidates: markerLabelCandidates(250, PLOT.top, 96, 14, 4) },
        { id: "expected: driver 580", candidates: markerLabelCandidates(290, PLOT.top, 110, 14, 4) },
      ],
      PLOT,
    );
    expect(placed.map((label) => [label.id, label.box.left, label.box.top])).toEqual([
      ["regression -22.1%", 253, 32],
      // Right of its line it would leave the plot (290 + 3 + 110 > 370), left of it it would cover the first.
      ["expected: driver 580", 177, 48],
    ]);
  });

  it("a line at the plot's right edge puts its label on the left of the line", () => {
    const [label] = layoutLabels(
      [{ id: "improvement +9%", candidates: markerLabelCandidates(365, 30, 90, 14, 4) }],
      PLOT,
    );
    expect(label).toEqual({ id: "improvement +9%", candidate: 1, box: { left: 272, top: 32, width: 90, height: 14 } });
  });
});
