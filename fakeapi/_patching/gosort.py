"""Go's ``sort.SliceStable``, step for step, for comparators that are not a strict weak order.

Strategic merge patch orders merged lists with ``sort.SliceStable`` and a comparator that calls
every item missing from the wanted order "smaller" than anything (``normalizeSliceOrder`` in
k8s.io/apimachinery ``pkg/util/strategicpatch/patch.go``). Such a comparator is no order at all, so
the result depends on which pairs the algorithm happens to compare: Python's sort would give other
lists. This is ``stable_func`` of ``sort/zsortfunc.go`` (Go 1.23, which builds kube-apiserver 1.32):
insertion sort over blocks of 20, then ``symMerge`` of ever larger blocks, with ``rotate`` and
``swapRange`` as Go writes them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["stable_sort"]


def stable_sort(items: list[Any], less: Callable[[Any, Any], bool]) -> None:
    """``sort.SliceStable(items, less)``, in place."""

    def lt(i: int, j: int) -> bool:
        return less(items[i], items[j])

    def swap(i: int, j: int) -> None:
        items[i], items[j] = items[j], items[i]

    def insertion_sort(a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and lt(j, j - 1):
                swap(j, j - 1)
                j -= 1

    def swap_range(a: int, b: int, n: int) -> None:
        for i in range(n):
            swap(a + i, b + i)

    def rotate(a: int, m: int, b: int) -> None:
        i, j = m - a, b - m
        while i != j:
            if i > j:
                swap_range(m - i, m, j)
                i -= j
            else:
                swap_range(m - i, m + j - i, i)
                j -= i
        swap_range(m - i, m, i)

    def sym_merge(a: int, m: int, b: int) -> None:
        if m - a == 1:
            i, j = m, b
            while i < j:
                h = (i + j) // 2
                if lt(h, a):
                    i = h + 1
                else:
                    j = h
            for k in range(a, i - 1):
                swap(k, k + 1)
            return
        if b - m == 1:
            i, j = a, m
            while i < j:
                h = (i + j) // 2
                if not lt(m, h):
                    i = h + 1
                else:
                    j = h
            for k in range(m, i, -1):
                swap(k, k - 1)
            return
        mid = (a + b) // 2
        n = mid + m
        if m > mid:
            start, r = n - b, mid
        else:
            start, r = a, m
        p = n - 1
        while start < r:
            c = (start + r) // 2
            if not lt(p - c, c):
                start = c + 1
            else:
                r = c
        end = n - start
        if start < m < end:
            rotate(start, m, end)
        if a < start < mid:
            sym_merge(a, start, mid)
        if mid < end < b:
            sym_merge(mid, end, b)

    n = len(items)
    block = 20
    a, b = 0, block
    while b <= n:
        insertion_sort(a, b)
        a, b = b, b + block
    insertion_sort(a, n)
    while block < n:
        a, b = 0, 2 * block
        while b <= n:
            sym_merge(a, a + block, b)
            a, b = b, b + 2 * block
        if a + block < n:
            sym_merge(a, a + block, n)
        block *= 2
