import Foundation
import Signals

/// One photo of the 500px "popular" list, as the API sends it.
public struct PhotoRecord: Codable, Equatable, Sendable, CustomStringConvertible {
    /// The photo's id in the list, from 1.
    public var id: Int
    /// The photo's title.
    public var name: String
    /// Where its thumbnail downloads from.
    public var thumbnailURL: String

    public var description: String { "#\(id) \(name)" }
}

/// The answer of the popular-photos request.
public struct PhotoPage: Codable, Equatable, Sendable, CustomStringConvertible {
    /// The photos, in the list's order.
    public var photos: [PhotoRecord]

    public var description: String { "\(photos.count) photos" }
}

/// A photo's details, fetched when it is selected.
public struct PhotoDetails: Codable, Equatable, Sendable, CustomStringConvertible {
    /// The photo's id.
    public var id: Int
    /// Who took it.
    public var author: String
    /// Where its full-size image downloads from.
    public var fullSizeURL: String

    public var description: String { "#\(id) by \(author)" }
}

/// Downloaded image data, as far as the simulation cares: where it came from and its size.
public struct ImageData: Codable, Equatable, Sendable, CustomStringConvertible {
    /// Where the image came from.
    public var url: String
    /// Its size.
    public var bytes: Int

    public var description: String { "\(bytes / 1024) KB" }
}

/// Why a 500px request failed.
public enum PixelsError: Error, Codable, Equatable, Sendable, CustomStringConvertible {
    case requestFailed(status: Int)

    public var description: String {
        switch self {
        case let .requestFailed(status): return "RequestFailed(\(status))"
        }
    }
}

/// A photo in the gallery: its record, and its images once downloaded (bound properties, the
/// book's `RAC(photoModel, thumbnailData) = …`).
public final class PhotoModel: @unchecked Sendable, CustomStringConvertible {  // immutable; its properties guard themselves
    /// The photo as the API sent it.
    public let record: PhotoRecord
    /// The thumbnail, nil until downloaded.
    public let thumbnailData = MutableProperty<ImageData?>(nil).named("thumbnailData")
    /// The full-size image, nil until downloaded (after the photo is selected).
    public let fullSizeData = MutableProperty<ImageData?>(nil).named("fullSizeData")

    init(_ record: PhotoRecord) { self.record = record }

    public var description: String { record.description }
}

/// What the photo browser shows.
public struct PixelsScreen: Equatable, Sendable {
    /// The navigation title, set from the same (multicast) import as the gallery.
    public var title = ""
    /// How many photos the gallery holds.
    public var photoCount = 0
    /// How many times the gallery reloaded.
    public var reloads = 0
    /// The photo each visible cell shows, by row.
    public var cellPhotos: [Int: Int] = [:]
    /// The thumbnail each visible cell shows, by row.
    public var cellImages: [Int: ImageData] = [:]
    /// Whether the full-size view's progress indicator spins.
    public var loading = false
    /// The details and image the full-size view shows.
    public var fullSizeDetails: PhotoDetails?
    /// The image the full-size view shows, once downloaded.
    public var fullSizeImage: ImageData?

    /// The screen before anything happened.
    public init() {}
}

/// FunctionalReactivePixels (the 500px browser of the book): the photo import is one request
/// multicast to its consumers (`publish` + `autoconnect`), its failure caught to empty, its
/// completion reloading the gallery; every photo's thumbnail downloads concurrently and is
/// bound to the photo's property; cells bind to it until `take(until:)` their reuse; selecting
/// a photo fetches its details and full-size image.
public struct FunctionalReactivePixels: Scenario {
    public let name = "pixels"
    public let title = "FunctionalReactivePixels"
    public let duration: TimeInterval = 3.6
    public let seed: UInt64
    /// Whether the popular-photos request fails (status 503).
    public let importFails: Bool

    /// The import, its multicast, the gallery, the thumbnails, scrolling and the full-size
    /// view: every photo's cell bindings on their own would make the figure ten screens long.
    public var figureNodes: [String]? {
        ["importPhotos", "photoModels", "photosArray", "thumbnail", "prepareForReuse", "selectPhoto", "photoDetails",
         "fullSizeImage", "fullSizePhoto"]
    }

    /// Photos in the popular list.
    public static let pageSize = 9
    /// Cells on screen: scrolling reuses a cell for the photo `visibleCells` further on.
    public static let visibleCells = 6
    /// The photo whose thumbnail the CDN no longer has: its download fails (404) and is
    /// caught, so its cell stays empty until scrolling reuses it for another photo.
    public static let missingThumbnail = 2

    /// Where the thumbnail of photo `id` is.
    public static func thumbnailURL(_ id: Int) -> String { "https://500px.example/t/\(id).jpg" }

    public init(seed: UInt64 = 1, importFails: Bool = false) {
        self.seed = seed
        self.importFails = importFails
    }

    public func build(in environment: Environment) -> Disposable {
        build(in: environment, screen: Guarded(PixelsScreen()))
    }

    /// Builds the pipeline, writing what it shows into `screen`.
    public func build(in environment: Environment, screen: Guarded<PixelsScreen>) -> Disposable {
        let main = environment.scheduler("main")
        let network = environment.scheduler("network")
        let service = FakeService(seed: seed)
        let disposables = CompositeDisposable()
        let importFails = self.importFails
        let names = ["Harbour", "Dunes", "Fog", "Tram", "Moss", "Neon", "Pier", "Glacier", "Kite"]

        // The book's `download:`: request → data → main thread, bound into a property (a failed
        // download leaves it nil). Each kind of download is its own call, found by its label.
        // The CDN has lost one thumbnail (`missingThumbnail`): its request fails with 404.
        func image(_ url: String, bytes: Int, latency: ClosedRange<TimeInterval>) -> SignalProducer<ImageData, PixelsError> {
            let missing = url == Self.thumbnailURL(Self.missingThumbnail)
            return service.respond(missing ? .failure(.requestFailed(status: 404)) : .success(ImageData(url: url, bytes: bytes)),
                                   after: service.latency(latency), on: network)
        }
        func delivered(_ download: SignalProducer<ImageData, PixelsError>) -> SignalProducer<ImageData?, Never> {
            download.observe(on: main).map(Optional.some).catchTo(empty())
        }

        let importPhotos = environment.call("importPhotos") { () -> SignalProducer<PhotoPage, PixelsError> in
            let latency = service.latency(0.4...0.6)
            let page = PhotoPage(photos: (1...Self.pageSize).map {
                PhotoRecord(id: $0, name: names[($0 - 1) % names.count], thumbnailURL: Self.thumbnailURL($0))
            })
            return service.respond(importFails ? .failure(.requestFailed(status: 503)) : .success(page),
                                   after: latency, on: network)
        }
        .map(\.photos)
        .observe(on: main)
        .map { records -> [PhotoModel] in
            records.map { record in
                let photo = PhotoModel(record)
                disposables += photo.thumbnailData <~ delivered(environment.call("thumbnail", request: record.id) {
                    image(record.thumbnailURL, bytes: 8192, latency: 0.15...0.5)
                })
                return photo
            }
        }
        .named("photoModels")
        .publish()
        .autoconnect()

        let photos = MutableProperty<[PhotoModel]>([]).named("photosArray")
        let prepareForReuse = environment.input("prepareForReuse", of: Int.self)

        func configure(row: Int, photo: PhotoModel) {
            screen.modify { $0.cellPhotos[row] = photo.record.id }
            disposables += photo.thumbnailData.producer
                .skipNil()
                .take(until: prepareForReuse.filter { $0 == row })
                .startWithValues { image in screen.modify { $0.cellImages[row] = image } }
        }

        func reload() {
            let models = photos.value
            screen.modify {
                $0.reloads += 1
                $0.photoCount = models.count
            }
            for (row, photo) in models.prefix(Self.visibleCells).enumerated() {
                configure(row: row, photo: photo)
            }
        }

        disposables += photos <~ importPhotos
            .on(completed: reload)
            .logError()
            .catchTo(empty())
        disposables += importPhotos
            .map { "Popular (\($0.count))" }
            .catchTo(empty())
            .startWithValues { title in screen.modify { $0.title = title } }

        // Scrolling: a reused cell shows the photo one screen further on.
        disposables += prepareForReuse.observeValues { row in
            let models = photos.value
            let next = row + Self.visibleCells
            if next < models.count { configure(row: row, photo: models[next]) }
        }

        func fetchPhotoDetails(_ photo: PhotoModel) -> SignalProducer<PhotoDetails, PixelsError> {
            environment.call("photoDetails", request: photo.record.id) { () -> SignalProducer<PhotoDetails, PixelsError> in
                let details = PhotoDetails(id: photo.record.id, author: "author\(photo.record.id)",
                                           fullSizeURL: "https://500px.example/f/\(photo.record.id).jpg")
                return service.respond(.success(details), after: service.latency(0.2...0.35), on: network)
            }
            .observe(on: main)
            .map { details in
                disposables += photo.fullSizeData <~ delivered(environment.call("fullSizeImage", request: details.id) {
                    image(details.fullSizeURL, bytes: 1_048_576, latency: 0.3...0.5)
                })
                return details
            }
        }

        let selectPhoto = environment.input("selectPhoto", of: Int.self)
        disposables += selectPhoto
            .on(value: { _ in screen.modify { $0.loading = true } })
            .flatMap(.latest) { index -> SignalProducer<PhotoDetails, Never> in
                let models = photos.value
                guard models.indices.contains(index) else { return empty() }
                return fetchPhotoDetails(models[index])
                    .on(terminated: { screen.modify { $0.loading = false } })
                    .catchTo(empty())
            }
            .named("fullSizePhoto")
            .observeValues { details in
                screen.modify { $0.fullSizeDetails = details }
                let models = photos.value
                guard let photo = models.first(where: { $0.record.id == details.id }) else { return }
                disposables += photo.fullSizeData.producer
                    .skipNil()
                    .startWithValues { image in screen.modify { $0.fullSizeImage = image } }
            }

        // The gallery's property lives as long as the pipeline: the bindings only hold it weakly.
        disposables += AnyDisposable { withExtendedLifetime(photos) {} }
        return disposables
    }

    /// Waits for the gallery, scrolls the first three cells off screen, then opens a photo.
    public func script(seed: UInt64) -> [ScriptStep] {
        var generator = SeededGenerator(seed: seed)
        let scroll = 1.5 + generator.seconds(0...0.1)
        var steps = (0..<3).map { row in
            ScriptStep(at: scroll + Double(row) * 0.05, "cell \(row) scrolled off") { try $0.send(row, to: "prepareForReuse") }
        }
        steps.append(ScriptStep(at: scroll + 0.6 + generator.seconds(0...0.1), "select photo 7") {
            try $0.send(7, to: "selectPhoto")
        })
        return steps
    }
}
