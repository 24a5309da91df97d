#!/usr/bin/env python3
# Counts seeds 1..N for which hplai's reference diagonal rule gives a singular matrix (the sign test
# of apps/hplai/problem.cpp reference_rule_singular, by brute force over the 2^n sign vectors),
# for n = 1..5. Usage: python3 scripts/experiments/hplai_singular_seeds.py N (docs/hplai.md).
import itertools, sys
M=2**64; MUL=6364136223846793005
def matrix(n, seed):
    s=seed; A=[[0.0]*n for _ in range(n)]
    for j in range(n):
        for i in range(n):
            s=(s*MUL+1)%M; A[i][j]=s*2.0**-64-0.5
    return A
def singular(A):
    n=len(A)
    for signs in itertools.product([1,-1], repeat=n):
        if all((A[i][j]>0) == (-signs[i]*signs[j]>0) for i in range(n) for j in range(n) if i!=j): return True
    return False
N=int(sys.argv[1])
for n in range(1,6):
    c=sum(singular(matrix(n,seed)) for seed in range(1,N+1))
    print(f"n={n}: {c} of {N} seeds singular")
