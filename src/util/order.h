/* The order of two numbers of one type as qsort comparators return it: -1, 0 or 1 (compared,
 * never subtracted, so no overflow and no truncation to int). */
#ifndef APTOP_ORDER_H
#define APTOP_ORDER_H

#define ORDER(a, b) (((a) > (b)) - ((a) < (b)))

#endif
