import BlueDotCore
import FoundationEssentials
import Glibc

/// A particle filter over horizontal position and velocity whose particles cross walls only through openings
/// (`WallMap`): the motion model of a target in a venue drawn with rooms.
///
/// Each particle moves with constant velocity plus a random acceleration (spectral density q, m²/s³) and its speed
/// capped; a move that would cross a wall stops the particle where it was, its velocity zeroed (it walked into the
/// wall). Each tick with anchors heard weighs the particles by the Kalman filter's updated position (a Gaussian,
/// its log-likelihood tempered) and resamples them systematically when the effective sample size falls below half
/// (Kitagawa 1996; Doucet, de Freitas, Gordon, *Sequential Monte Carlo Methods in Practice*, 2001). Weighing by the
/// anchors' RSSI directly was measured too: worse on the WUT flat held out (docs/positioning.md, "Walls"). The estimate is the weighted mean, moved to the nearest particle when the
/// mean itself falls outside the walkable area (the mean of a cloud split by a wall can lie in the wall); its
/// covariance is the particles' weighted covariance. Seeded per target, so a replay is deterministic.
struct WallParticleFilter: Sendable {
    private var x: [Double], y: [Double], vx: [Double], vy: [Double]
    private var logWeight: [Double]
    private var rng: SplitMix64
    /// The floor the particles are on.
    let floor: Int

    /// Particles drawn from a Gaussian (mean, 2 x 2 position covariance) with velocity sigma `velocitySigma`, each
    /// redrawn up to 20 times until it is walkable.
    init(count: Int, x mx: Double, y my: Double, sxx: Double, sxy: Double, syy: Double, velocitySigma: Double,
         walls: WallMap, floor: Int, seed: UInt64) {
        self.floor = floor
        rng = SplitMix64(seed: seed)
        var x: [Double] = [], y: [Double] = [], vx: [Double] = [], vy: [Double] = []
        for _ in 0..<count {
            let (px, py) = Self.walkableDraw(x: mx, y: my, sxx: sxx, sxy: sxy, syy: syy, walls: walls, floor: floor,
                                             rng: &rng)
            x.append(px)
            y.append(py)
            vx.append(velocitySigma * rng.gaussian())
            vy.append(velocitySigma * rng.gaussian())
        }
        self.x = x
        self.y = y
        self.vx = vx
        self.vy = vy
        logWeight = [Double](repeating: 0, count: count)
    }

    /// A draw from the Gaussian (mean, 2 x 2 covariance, through its Cholesky factor), redrawn up to 20 times
    /// until it is walkable (the last draw when none is).
    private static func walkableDraw(x mx: Double, y my: Double, sxx: Double, sxy: Double, syy: Double,
                                     walls: WallMap, floor: Int, rng: inout SplitMix64) -> (Double, Double) {
        let l11 = max(sxx, 1e-6).squareRoot()
        let l21 = sxy / l11
        let l22 = max(syy - l21 * l21, 1e-6).squareRoot()
        var px = mx, py = my
        for _ in 0..<20 {
            let a = rng.gaussian(), b = rng.gaussian()
            px = mx + l11 * a
            py = my + l21 * a + l22 * b
            if walls.isWalkable(x: px, y: py, floor: floor) { break }
        }
        return (px, py)
    }

    /// Moves every particle by dt seconds.
    mutating func predict(dt: Double, accelerationNoise q: Double, maximumSpeed: Double, walls: WallMap) {
        guard dt > 0 else { return }
        let sigma = (q * dt).squareRoot()
        for i in x.indices {
            let ax = sigma * rng.gaussian(), ay = sigma * rng.gaussian()
            var nvx = vx[i] + ax, nvy = vy[i] + ay
            let speed = (nvx * nvx + nvy * nvy).squareRoot()
            if speed > maximumSpeed {
                nvx *= maximumSpeed / speed
                nvy *= maximumSpeed / speed
            }
            let nx = x[i] + 0.5 * (vx[i] + nvx) * dt, ny = y[i] + 0.5 * (vy[i] + nvy) * dt
            if walls.blocks(fromX: x[i], fromY: y[i], toX: nx, toY: ny, floor: floor) {
                vx[i] = 0
                vy[i] = 0
            } else {
                x[i] = nx
                y[i] = ny
                vx[i] = nvx
                vy[i] = nvy
            }
        }
    }

    /// Weighs the particles by a Gaussian position measurement (mean, covariance), its log scaled by `temper`
    /// (in (0, 1]: the measurement is a filter's posterior, correlated from tick to tick, so full weight would
    /// count the same information again each tick); resamples when the effective sample size is below half.
    ///
    /// Particles trapped behind a wall cannot follow a target that went through a door they did not find, so some
    /// are redrawn from the measurement itself (walkable draws; sensor resetting, Lenser and Veloso 2000): the
    /// lightest `resetShare` of them every update, and half of them when the cloud's mean is more than a 99%
    /// chi-square distance from the measurement.
    mutating func update(x mx: Double, y my: Double, sxx: Double, sxy: Double, syy: Double, temper: Double,
                         walls: WallMap, resetShare: Double = 0.02) {
        let det = sxx * syy - sxy * sxy
        guard det > 1e-12 else { return }
        let ixx = syy / det, ixy = -sxy / det, iyy = sxx / det
        for i in x.indices {
            let dx = x[i] - mx, dy = y[i] - my
            logWeight[i] -= temper * 0.5 * (ixx * dx * dx + 2 * ixy * dx * dy + iyy * dy * dy)
        }
        normalizeAndResample()
        // How far the cloud is from the measurement (both spreads counted).
        let e = moments()
        let cxx = sxx + e.sxx, cxy = sxy + e.sxy, cyy = syy + e.syy
        let cdet = cxx * cyy - cxy * cxy
        let dx = e.x - mx, dy = e.y - my
        let distance2 = cdet > 1e-12 ? (cyy * dx * dx - 2 * cxy * dx * dy + cxx * dy * dy) / cdet : 0
        let share = distance2 > 9.21 ? 0.5 : resetShare
        let count = Int((share * Double(x.count)).rounded())
        guard count > 0 else { return }
        let lightest = logWeight.indices.sorted { logWeight[$0] < logWeight[$1] }.prefix(count)
        let meanLogWeight = log(logWeight.map(exp).reduce(0, +) / Double(x.count))
        for i in lightest {
            (x[i], y[i]) = Self.walkableDraw(x: mx, y: my, sxx: sxx, sxy: sxy, syy: syy, walls: walls, floor: floor,
                                             rng: &rng)
            vx[i] = 0
            vy[i] = 0
            logWeight[i] = meanLogWeight
        }
    }

    /// Shifts the log weights to a maximum of 0; resamples when the effective sample size is below half.
    private mutating func normalizeAndResample() {
        let top = logWeight.max() ?? 0
        var sum = 0.0, sumSquares = 0.0
        for i in logWeight.indices {
            logWeight[i] -= top
            let w = exp(logWeight[i])
            sum += w
            sumSquares += w * w
        }
        if sum * sum < 0.5 * Double(x.count) * sumSquares { resample() }
    }

    /// Systematic resampling: one uniform offset, particles copied in proportion to their weights.
    private mutating func resample() {
        let n = x.count
        let weights = logWeight.map(exp)
        let total = weights.reduce(0, +)
        guard total > 0, total.isFinite else { return }
        let step = total / Double(n)
        var u = Double.random(in: 0..<1, using: &rng) * step
        var cumulative = weights[0]
        var j = 0
        var nx = [Double](), ny = [Double](), nvx = [Double](), nvy = [Double]()
        nx.reserveCapacity(n)
        for _ in 0..<n {
            while u > cumulative, j < n - 1 {
                j += 1
                cumulative += weights[j]
            }
            nx.append(x[j])
            ny.append(y[j])
            nvx.append(vx[j])
            nvy.append(vy[j])
            u += step
        }
        x = nx
        y = ny
        vx = nvx
        vy = nvy
        logWeight = [Double](repeating: 0, count: n)
    }

    /// The particles' weighted mean position, its covariance and the mean velocity.
    private func moments() -> (x: Double, y: Double, sxx: Double, sxy: Double, syy: Double, vx: Double, vy: Double) {
        var total = 0.0, mx = 0.0, my = 0.0, mvx = 0.0, mvy = 0.0
        let weights = logWeight.map(exp)
        for i in x.indices {
            let w = weights[i]
            total += w
            mx += w * x[i]
            my += w * y[i]
            mvx += w * vx[i]
            mvy += w * vy[i]
        }
        guard total > 0 else { return (x[0], y[0], 0, 0, 0, 0, 0) }
        mx /= total
        my /= total
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for i in x.indices {
            let w = weights[i] / total, dx = x[i] - mx, dy = y[i] - my
            sxx += w * dx * dx
            sxy += w * dx * dy
            syy += w * dy * dy
        }
        return (mx, my, sxx, sxy, syy, mvx / total, mvy / total)
    }

    /// The estimate: position (kept walkable), its covariance and the mean velocity.
    func estimate(walls: WallMap) -> (x: Double, y: Double, sxx: Double, sxy: Double, syy: Double,
                                      vx: Double, vy: Double) {
        let (mx, my, sxx, sxy, syy, mvx, mvy) = moments()
        let weights = logWeight.map(exp)
        var px = mx, py = my
        if !walls.isWalkable(x: mx, y: my, floor: floor) {
            // The nearest particle with a weight of note (walkable unless the whole cloud started outside).
            var best = Double.infinity
            for i in x.indices where weights[i] > 1e-3 {
                let d = (x[i] - mx) * (x[i] - mx) + (y[i] - my) * (y[i] - my)
                if d < best {
                    best = d
                    px = x[i]
                    py = y[i]
                }
            }
        }
        return (px, py, sxx + (px - mx) * (px - mx), sxy + (px - mx) * (py - my), syy + (py - my) * (py - my),
                mvx, mvy)
    }
}
