// jstat ships no types; these are the functions servebench uses.
declare module "jstat" {
  export const jStat: {
    studentt: {
      /** The CDF of Student's t distribution with `dof` degrees of freedom at `x`. */
      cdf(x: number, dof: number): number;
      /** The quantile of Student's t distribution with `dof` degrees of freedom at probability `p`. */
      inv(p: number, dof: number): number;
    };
    normal: {
      /** The CDF of the normal distribution of `mean` and `std` at `x`. */
      cdf(x: number, mean: number, std: number): number;
    };
  };
}
