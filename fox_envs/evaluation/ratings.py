"""Bradley-Terry ratings on the Elo scale, with bootstrap uncertainty.

Model: ``P(i beats j) = g_i / (g_i + g_j)``; a draw counts as half a win for each side.
Ratings are ``400 * log10(g_i)`` shifted so that their mean is 0, so a difference of 400
points means 10:1 odds (the Elo convention). The fit is the MM algorithm (Hunter 2004) with
``prior`` virtual drawn games added to every pair that played (it keeps perfect records finite;
``prior=0`` gives the plain maximum-likelihood fit when that exists).

Uncertainty: ``bootstrap`` resamples each pair's games (multinomial over its win/draw/loss
counts), refits, and reports the standard deviation and the 2.5 / 97.5 percentiles of each
rating, from a seeded Generator.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ELO = 400.0 / math.log(10.0)


def fit_bradley_terry(wins: np.ndarray, games: np.ndarray, prior: float = 1.0,
                      iterations: int = 2000, tolerance: float = 1e-10) -> np.ndarray:
    """Ratings (Elo scale, mean 0) from ``wins[i, j]`` (points of i against j, draws as 0.5)
    and ``games[i, j]`` (symmetric game counts)."""
    wins = np.asarray(wins, dtype=np.float64)
    games = np.asarray(games, dtype=np.float64)
    k = len(wins)
    played = games > 0
    w = wins + prior * 0.5 * played
    n = games + prior * played
    gamma = np.ones(k)
    total_wins = w.sum(axis=1)
    for _ in range(iterations):
        denominator = (n / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = np.where(denominator > 0, total_wins / np.maximum(denominator, 1e-300), gamma)
        new = np.maximum(new, 1e-300)
        new /= math.exp(np.mean(np.log(new)))
        if np.max(np.abs(np.log(new) - np.log(gamma))) < tolerance:
            gamma = new
            break
        gamma = new
    ratings = ELO * np.log(gamma)
    return ratings - ratings.mean()


@dataclass
class Ratings:
    names: list[str]
    ratings: np.ndarray
    std_errors: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray

    def to_list(self) -> list[dict]:
        order = np.argsort(-self.ratings, kind="stable")
        return [
            {"name": self.names[i], "rating": float(self.ratings[i]), "std_error": float(self.std_errors[i]),
             "ci95": [float(self.ci_low[i]), float(self.ci_high[i])]}
            for i in order
        ]


def rate(names: list[str], wins: np.ndarray, draws: np.ndarray, prior: float = 1.0,
         bootstrap: int = 200, seed: int = 0) -> Ratings:
    """Ratings with bootstrap errors from ``wins[i, j]`` (games i won against j) and symmetric
    ``draws[i, j]``."""
    wins = np.asarray(wins, dtype=np.int64)
    draws = np.asarray(draws, dtype=np.int64)
    games = wins + wins.T + draws
    points = wins + 0.5 * draws
    ratings = fit_bradley_terry(points, games, prior)
    k = len(names)
    if bootstrap <= 0:
        nan = np.full(k, math.nan)
        return Ratings(list(names), ratings, nan, nan.copy(), nan.copy())
    rng = np.random.default_rng(seed)
    samples = np.empty((bootstrap, k))
    for b in range(bootstrap):
        w = np.zeros((k, k), dtype=np.int64)
        d = np.zeros((k, k), dtype=np.int64)
        for i in range(k):
            for j in range(i + 1, k):
                n = int(games[i, j])
                if n == 0:
                    continue
                p = np.array([wins[i, j], draws[i, j], wins[j, i]], dtype=np.float64) / n
                a, dr, c = rng.multinomial(n, p)
                w[i, j], w[j, i], d[i, j], d[j, i] = a, c, dr, dr
        samples[b] = fit_bradley_terry(w + 0.5 * d, w + w.T + d, prior)
    return Ratings(list(names), ratings, samples.std(axis=0, ddof=1),
                   np.percentile(samples, 2.5, axis=0), np.percentile(samples, 97.5, axis=0))
