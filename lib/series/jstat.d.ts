// jstat ships no types; this is the one function servebench uses.
declare module "jstat" {
  export const jStat: {
    studentt: {
      /** The CDF of Student's t distribution with `dof` degrees of freedom at `x`. */
      cdf(x: number, dof: number): number;
    };
  };
}
